import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { root, testCodeBlocks } from "./helpers/doc-blocks.js";

/**
 * The README is what a new user follows line by line: every code block in it is run here (the rules are
 * in helpers/doc-blocks.ts; docs.test.ts runs those of docs/). It stays a task-first page: short, no
 * wide tables, every reference page linked.
 */
const readme = readFileSync(join(root, "README.md"), "utf8");

describe("README code blocks", () => {
  testCodeBlocks(["README.md"]);
});

describe("README shape", () => {
  it("is a task-first page of at most 250 lines that links every page of docs/", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(250);
    for (const page of readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md"))) {
      expect(readme, page).toContain(`(docs/${page})`);
    }
  });

  it("no table row is over 160 characters, in the README or in docs/", () => {
    const pages = ["README.md", ...readdirSync(join(root, "docs")).map((f) => join("docs", f))];
    const wide = pages.flatMap((page) =>
      readFileSync(join(root, page), "utf8")
        .split("\n")
        .map((line, index) => ({ page, line: index + 1, length: line.length, row: line.startsWith("|") }))
        .filter((l) => l.row && l.length > 160)
        .map((l) => `${l.page}:${l.line} (${l.length})`),
    );
    expect(wide).toEqual([]);
  });
});
