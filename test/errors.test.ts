import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ErrorCode, errorMessages, ServerConnectionError, ToolNotFoundError } from "../src/errors/index.js";

const srcDir = join(process.cwd(), "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Codes that have a subclass: an error with one of them is always built with that subclass. */
const codesWithSubclass = [
  "ConfigNotFound",
  "ConfigParse",
  "ConfigInvalid",
  "ServerStartFailed",
  "ServerStartTimeout",
  "ServerUnavailable",
  "ServerRequired",
  "ServerNotFound",
  "ServerCrashed",
  "ToolNotFound",
  "ToolTimeout",
  "Aborted",
  "ToolExecution",
  "InvalidArguments",
] satisfies (keyof typeof ErrorCode)[];

describe("one error shape", () => {
  it("builds every error whose code has a subclass with that subclass, so instanceof works", () => {
    const pattern = new RegExp(
      `new McpBridgeError\\(\\s*ErrorCode\\.(${codesWithSubclass.join("|")})\\b`,
      "g",
    );
    const offenders = sourceFiles(srcDir).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(pattern)].map((m) => `${relative(srcDir, file)}: ${m[1]}`),
    );
    expect(offenders).toEqual([]);
  });

  it("composes messages in errors.ts, not at the throw sites of the tool path (bridge calls, adapters, registry, results, search)", () => {
    const dirs = ["adapters", "registry", "results", "search"];
    const files = [
      ...dirs.flatMap((dir) => sourceFiles(join(srcDir, dir))),
      ...["bridge.ts", "call.ts", "diagnostics.ts", "server-record.ts"].map((file) =>
        join(srcDir, "bridge", file),
      ),
      join(srcDir, "apps/cli/commands/call-command.ts"),
    ];
    // An error class constructed with its wording written in place (a string or template literal).
    const literal = /new (?:McpBridgeError|[A-Z]\w*Error)\(\s*(?:ErrorCode\.\w+,\s*)?[`"']/g;
    const offenders = files.flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(literal)].map((m) => `${relative(srcDir, file)}: ${m[0]}`),
    );
    expect(offenders).toEqual([]);
  });

  it("says what failed, for which server and tool, and what to do", () => {
    expect(errorMessages.serverNotFound("gh", ["files", "web"])).toBe(
      'No server named "gh" in the config (servers: files, web). Check `mcp-bridge status`.',
    );
    expect(errorMessages.serverNotFound("gh", [])).toContain("(servers: none)");
    expect(
      errorMessages.unknownTool("mcp_x", 3, [
        { name: "slow", state: "connecting" },
        { name: "dead", state: "failed", reason: "exited with code 1" },
      ]),
    ).toBe(
      'Unknown tool "mcp_x" (3 tools registered; server "slow" is still connecting; server "dead" failed: exited with code 1). Use an exposed name from `mcp-bridge tools` or "server/tool".',
    );
    expect(errorMessages.toolTimeout("s", "t", 500)).toMatch(
      /"t" on server "s" .*500 ms.*Raise the call timeout/,
    );
    const error = new ServerConnectionError(
      ErrorCode.ServerNotFound,
      errorMessages.serverNotFound("gh", []),
      {
        server: "gh",
      },
    );
    expect(error.toJSON()).toEqual({ code: "SERVER_NOT_FOUND", message: error.message, server: "gh" });
    expect(new ToolNotFoundError(errorMessages.toolNotFound("s", "t"))).toBeInstanceOf(Error);
  });
});
