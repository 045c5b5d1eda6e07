import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/index.js";

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "mcp-bridge-large-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ENTRIES = 40_000;

/** A generated 10 MB config in VS Code's JSON-with-comments style: a comment and a trailing comma per entry. */
function writeJsonc(): string {
  const lines = ["{", "  // generated", '  "mcpServers": {'];
  for (let i = 0; i < ENTRIES; i++)
    lines.push(
      `    "server-${i}": { "command": "node", "args": ["${"x".repeat(200)}"], "enabled": false, }, /* #${i} */`,
    );
  lines.push("  },", "}");
  const file = join(dir, "big.json");
  writeFileSync(file, lines.join("\n"));
  return file;
}

/**
 * Memory, not time: a loader that copies the file a character at a time (one string piece per
 * character, all alive until the end) needs hundreds of MB for 10 MB of text and dies in a small heap;
 * one that is linear in the file fits. The built library runs in a child with a 128 MB heap.
 */
describe("a 10 MB config with comments", () => {
  it("loads its 40,000 entries within a 128 MB heap", async () => {
    const file = writeJsonc();
    const program = `
      import { loadConfig } from ${JSON.stringify(join(process.cwd(), "dist/src/index.js"))};
      const loaded = await loadConfig({ path: ${JSON.stringify(file)}, env: {} });
      process.stdout.write(JSON.stringify({ servers: loaded.servers.length, warnings: loaded.warnings.length }));
    `;
    const { stdout } = await run(
      process.execPath,
      ["--max-old-space-size=128", "--input-type=module", "-e", program],
      { timeout: 55_000, maxBuffer: 1 << 20 },
    );
    expect(JSON.parse(stdout)).toEqual({ servers: ENTRIES, warnings: 0 });
  }, 60_000);

  it("reads comments, trailing commas and slashes inside strings as before", async () => {
    const file = join(dir, "small.json");
    writeFileSync(
      file,
      [
        "{ // servers",
        '  "mcpServers": { /* one */',
        '    "a": { "command": "node", "args": ["//not a comment", "/* nor this */", "q\\"//x",], },',
        '    "b": { "url": "http://127.0.0.1:1/mcp" , /* last */ },',
        "  },",
        "}",
      ].join("\n"),
    );
    const loaded = await loadConfig({ path: file, env: {} });
    expect(loaded.servers.map((server) => server.name)).toEqual(["a", "b"]);
    const a = loaded.servers[0];
    expect(a?.transport === "stdio" && a.args).toEqual(["//not a comment", "/* nor this */", 'q"//x']);
  });
});
