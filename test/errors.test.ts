import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import {
  AbortError,
  aborted,
  type ErrorCode,
  requestTimeout,
  ServerConnectionError,
  ServerRequestError,
  serverNotFound,
  serverUnavailable,
  ToolNotFoundError,
  ToolTimeoutError,
  toolNotFound,
  toolTimeout,
  unknownTool,
} from "../src/errors/index.js";

const srcDir = join(process.cwd(), "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Text written in place: a string or template literal, or a concatenation holding one. */
const isText = (node: ts.Node): boolean =>
  ts.isStringLiteral(node) ||
  ts.isNoSubstitutionTemplateLiteral(node) ||
  ts.isTemplateExpression(node) ||
  (ts.isBinaryExpression(node) && (isText(node.left) || isText(node.right)));

/** Text written in place with words in it (a key such as "sandbox.env" or a kind has none). */
const hasWords = (node: ts.Node): boolean => isText(node) && /\s/.test(node.getText());

/**
 * The error constructions of a file given their wording in place, as `line: text`: `new Error("…")`,
 * `new SdkError(code, "…")`, `new ProtocolError(code, \`…\`)`, any `new …Error(…)` with text in any
 * argument; and config's `new EntryProblem(field, "…")` (a problem of one entry, any `new …Problem(…)`),
 * whose field and kind are keys, with words in any argument. JavaScript's own TypeError and
 * RangeError stay: they are programmer errors, and transport/keepalive-fetch.ts mimics fetch's own
 * failures with them.
 */
function wordedErrors(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression)) {
      const name = node.expression.text;
      const worded =
        /Error$/.test(name) && !/^(Type|Range)Error$/.test(name)
          ? isText
          : /Problem$/.test(name)
            ? hasWords
            : undefined;
      if (worded && (node.arguments ?? []).some(worded)) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        found.push(`${line}: ${node.getText(source).slice(0, 80)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
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

  it("composes messages in a factory home, never at a throw site anywhere in src/", () => {
    // The factory homes: errors/, and the two whose errors are wire data or CLI usage (errors/index.ts
    // says why each exists).
    const homes = ["errors/", "apps/gateway/wire-errors.ts", "apps/cli/usage-errors.ts"];
    const files = sourceFiles(srcDir).filter(
      (file) => !homes.some((home) => relative(srcDir, file).startsWith(home)),
    );
    const offenders = files.flatMap((file) =>
      wordedErrors(file).map((site) => `${relative(srcDir, file)}:${site}`),
    );
    expect(offenders).toEqual([]);
  });

  it("says what failed, for which server and tool, and what to do", () => {
    expect(serverNotFound({ server: "gh", configured: ["files", "web"] }).message).toBe(
      'No server named "gh" in the config (servers: files, web). Check `mcp-bridge status`.',
    );
    expect(serverNotFound({ server: "gh", configured: [] }).message).toContain("(servers: none)");
    expect(
      unknownTool({
        name: "mcp_x",
        registered: 3,
        pending: [
          { name: "slow", state: "connecting" },
          { name: "dead", state: "failed", reason: "exited with code 1" },
        ],
      }).message,
    ).toBe(
      'Unknown tool "mcp_x" (3 tools registered; server "slow" is still connecting; server "dead" failed: exited with code 1). Use an exposed name from `mcp-bridge tools` or "server/tool".',
    );
    expect(toolTimeout({ server: "s", tool: "t", timeoutMs: 500 }).message).toMatch(
      /"t" on server "s" .*500 ms.*Raise the call timeout/,
    );
    const error = serverNotFound({ server: "gh", configured: [] });
    expect(error).toBeInstanceOf(ServerConnectionError);
    expect(error.toJSON()).toEqual({ code: "SERVER_NOT_FOUND", message: error.message, server: "gh" });
    expect(toolNotFound({ server: "s", tool: "t" })).toBeInstanceOf(ToolNotFoundError);
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
});
