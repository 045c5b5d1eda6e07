#!/usr/bin/env node
// Lists the functions of src/ longer than a bound (lines from the function's
// first line to its last), longest first, to measure a refactoring before and
// after. Usage: node scripts/long-functions.mjs [bound=60] [dir=src]
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

const bound = Number(process.argv[2] ?? 60);
const root = process.argv[3] ?? "src";

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (path.endsWith(".ts") && !path.endsWith(".d.ts")) yield path;
  }
}

function nameOf(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText();
  return "(anonymous)";
}

const found = [];
for (const path of files(root)) {
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > bound) found.push({ lines, name: nameOf(node), where: `${path}:${start + 1}` });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
found.sort((a, b) => b.lines - a.lines);
for (const f of found) console.log(`${String(f.lines).padStart(4)}  ${f.name}  ${f.where}`);
console.log(`${found.length} functions over ${bound} lines in ${root}`);
