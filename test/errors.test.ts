import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import {
  AbortError,
  aborted,
  ErrorCode,
  errorMessages,
  requestFailed,
  requestTimeout,
  restartUnknown,
  ServerConnectionError,
  ServerRequestError,
  serverNotFound,
  serverUnavailable,
  ToolNotFoundError,
  ToolTimeoutError,
  toolTimeout,
} from "../src/errors/index.js";

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

  it("composes messages in errors/ (or the CLI's usage-errors.ts), never at a throw site anywhere in src/", () => {
    const dirs = [
      "adapters",
      "audit",
      "policy",
      "auth",
      "bridge",
      "codemode",
      "config",
      "connection",
      "registry",
      "results",
      "search",
      "telemetry",
      "transport",
      "util",
    ];
    const files = [
      ...dirs.flatMap((dir) => sourceFiles(join(srcDir, dir))),
      ...["cli", "daemon", "gateway", "agent"].flatMap((app) => sourceFiles(join(srcDir, "apps", app))),
    ];
    // An error class constructed with its wording written in place (a string or template literal).
    // (JavaScript's own TypeError/RangeError stay: sdk/keepalive-fetch.ts mimics fetch's failures.)
    const literal = /new (?:McpBridgeError|(?!Type|Range)[A-Z]\w*Error)\(\s*(?:ErrorCode\.\w+,\s*)?[`"']/g;
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

describe("one factory per situation", () => {
  it("returns a complete error: class, code, message and fields", () => {
    const notFound = serverNotFound({ server: "gh", configured: ["files"] });
    expect(notFound).toBeInstanceOf(ServerConnectionError);
    expect(notFound.toJSON()).toEqual({
      code: "SERVER_NOT_FOUND",
      message: 'No server named "gh" in the config (servers: files). Check `mcp-bridge status`.',
      server: "gh",
    });
    const timeout = toolTimeout({ server: "s", tool: "t", timeoutMs: 500, detail: "while queued" });
    expect(timeout).toBeInstanceOf(ToolTimeoutError);
    expect([timeout.code, timeout.server, timeout.tool, timeout.timeoutMs]).toEqual([
      "TOOL_TIMEOUT",
      "s",
      "t",
      500,
    ]);
    expect(timeout.message).toMatch(/within 500 ms while queued; the request was cancelled/);
    const cause = new Error("boom");
    const abort = aborted({ server: "s", cause });
    expect(abort).toBeInstanceOf(AbortError);
    expect([abort.code, abort.cause, abort.tool]).toEqual(["ABORTED", cause, undefined]);
    const request = requestTimeout({
      server: "s",
      method: "resources/read",
      item: "file:///x",
      timeoutMs: 9,
    });
    expect(request).toBeInstanceOf(ServerRequestError);
    expect(request.toJSON()).toEqual({
      code: "REQUEST_TIMEOUT",
      message:
        'Resources/read "file:///x" on server "s" did not finish within 9 ms; the request was cancelled.',
      server: "s",
      method: "resources/read",
      item: "file:///x",
    });
  });

  it("keeps absent fields absent, so JSON output has no undefined keys", () => {
    const error = serverUnavailable({ server: "s", state: "failed", reason: undefined, tool: undefined });
    expect(Object.keys(error.toJSON())).toEqual(["code", "message", "server"]);
    expect(error.cause).toBeUndefined();
  });

  it("keeps the 0.x message builders equal to the factories' messages", () => {
    expect(errorMessages.restartUnknown("gi", ["git"], '; did you mean "git"?')).toBe(
      restartUnknown({ server: "gi", configured: ["git"], near: "git" }).message,
    );
    expect(errorMessages.requestFailed("s", 'prompts/get "p"', "nope")).toBe(
      requestFailed({ server: "s", method: "prompts/get", item: "p", detail: "nope" }).message,
    );
  });
});
