#!/usr/bin/env node
// Runs a command under another Node major: `node scripts/with-node.mjs 24 npx vitest run`.
// mcp-bridge supports Node 20, 22 and 24; CI runs the suite on each. The binaries come from the npm
// registry's `node` package (the only registry this project may use), installed once into
// .node-versions/<major>/ and put first on PATH, so every `node` the command and its tests spawn
// (CLI runs, fixture servers, `#!/usr/bin/env node` scripts) is that version.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const [major, command, ...args] = process.argv.slice(2);
if (!major || !/^\d+$/.test(major) || !command) {
  process.stderr.write("usage: node scripts/with-node.mjs MAJOR COMMAND [ARGS...]\n");
  process.exit(2);
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const prefix = join(root, ".node-versions", major);
const bin = join(prefix, "node_modules", ".bin");
if (!existsSync(join(bin, "node"))) {
  process.stderr.write(`installing node@${major} into ${prefix} ...\n`);
  execFileSync(
    "npm",
    ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-save", `node@${major}`],
    {
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
}
const env = { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ""}` };
const version = execFileSync(join(bin, "node"), ["--version"], { encoding: "utf8" }).trim();
process.stderr.write(`running on Node ${version}: ${command} ${args.join(" ")}\n`);
const result = spawnSync(command, args, { stdio: "inherit", env });
process.exit(result.status ?? 1);
