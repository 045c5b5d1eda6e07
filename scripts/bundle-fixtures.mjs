#!/usr/bin/env node
// Bundles the built fixture servers (dist/test/fixtures/servers/*.js, from `tsc`) into
// dist/test/fixtures/bundled/servers/, one entry per fixture and shared chunks. The suite starts these
// servers well over a thousand times: most of a fixture's start is Node resolving and loading the
// hundreds of files of zod and the MCP SDK, which a bundle (only the code the fixture uses, in a few
// files) cuts by about a third of its CPU. The code that runs is the same; `fixturePath` takes a bundle
// only when it is newer than the `tsc` output it came from, so a rebuild without this step never runs
// a stale bundle. `npm test` runs it after `tsc`; nothing else needs it.
import { existsSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const built = join(root, "dist/test/fixtures/servers");
const out = join(root, "dist/test/fixtures/bundled/servers");
// Not servers (index, lib), or a server whose point is an import that fails at run time.
const skip = new Set(["index.js", "lib.js", "missing-module.js"]);

if (!existsSync(built)) {
  process.stderr.write(`${built} is missing: run tsc first\n`);
  process.exit(1);
}
const input = Object.fromEntries(
  readdirSync(built)
    .filter((file) => file.endsWith(".js") && !skip.has(file))
    .map((file) => [file.slice(0, -".js".length), join(built, file)]),
);
rmSync(out, { recursive: true, force: true });
// rolldown comes with vitest (through vite), not as a dependency of its own: without it the fixtures run
// unbundled, as they do after a plain build.
let rolldown;
try {
  ({ rolldown } = await import("rolldown"));
} catch {
  process.stderr.write("rolldown is not installed: the fixture servers run unbundled\n");
  process.exit(0);
}
const bundle = await rolldown({ input, platform: "node", logLevel: "warn" });
try {
  await bundle.write({ dir: out, format: "esm", chunkFileNames: "chunks/[name]-[hash].js" });
} finally {
  await bundle.close();
}
