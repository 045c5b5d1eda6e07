import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { jsonComplaint } from "../../src/config/parse.js";
import { McpBridgeError } from "../../src/errors/index.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-bridge-parse-errors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every way an error could reach a person: its message, its JSON, and the messages of its causes. */
function everythingShown(error: unknown): string {
  const parts: string[] = [];
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    parts.push(current.message, String(current.stack));
    if (current instanceof McpBridgeError) parts.push(JSON.stringify(current));
  }
  return parts.join("\n");
}

const SECRET = "sk-live-9f8e7d6c5b4a";

describe("a config with a syntax error", () => {
  it.each([
    [
      "JSON, an unquoted value",
      "mcp.json",
      `{"mcpServers": {"a": {"command": "x", "env": {"KEY": ${SECRET}}}}}`,
    ],
    [
      "JSON, garbage after a value",
      "mcp.json",
      `{"mcpServers": {"a": {"command": "x", "env": {"KEY": "${SECRET}" x}}}}`,
    ],
    ["JSON, a truncated value", "mcp.json", `{"token": "${SECRET}", "b": tru}`],
    [
      "TOML, garbage after a value",
      "config.toml",
      `[mcp_servers.a]\ncommand = "x"\nenv = { KEY = "${SECRET}" x }\n`,
    ],
  ])("%s: CONFIG_PARSE names the place, never the file's text", async (_name, fileName, text) => {
    const file = join(dir, fileName);
    writeFileSync(file, text);
    const error = await loadConfig({ path: file, env: {}, cwd: dir }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpBridgeError);
    expect((error as McpBridgeError).code).toBe("CONFIG_PARSE");
    const shown = everythingShown(error);
    for (let i = 0; i + 4 <= SECRET.length; i++) expect(shown).not.toContain(SECRET.slice(i, i + 4));
  });

  it("keeps the parser's complaint and drops any quoted excerpt, for any text around the fault", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f]{8,32}$/), (value) => {
        for (const text of [`{"a": ${value}}`, `{"a": "${value}" x}`, `{"a": "${value}", "b": tru}`]) {
          try {
            JSON.parse(text);
          } catch (error) {
            const complaint = jsonComplaint((error as Error).message);
            expect(complaint.length).toBeGreaterThan(0);
            expect(complaint).not.toContain(value.slice(0, 6));
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
