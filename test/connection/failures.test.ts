import { ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import {
  callFailure,
  type FailureContext,
  isNetworkFailure,
  pickStderrLines,
  startFailure,
  unexpectedStop,
} from "../../src/connection/failures.js";
import { RESULT_TOO_LARGE_RPC_CODE } from "../../src/transport/process-transport.js";

/** The pure failure translation, table-tested without processes. */

const redact = (text: string) => text.replaceAll("s3cret", "***");
const stdio: FailureContext = { server: "files", transport: "stdio", command: "node", redact, stderr: [] };
const remote: FailureContext = {
  server: "api",
  transport: "http",
  url: "http://127.0.0.1:9/mcp?token=s3cret",
  redact,
  stderr: [],
};
const start = { timeoutMs: 3000, maxListPages: 500 };

function errno(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

describe("startFailure", () => {
  it.each([
    [
      "a missing command",
      stdio,
      errno("ENOENT"),
      {},
      "SERVER_START_FAILED",
      /cannot run command "node" \(ENOENT\)/,
    ],
    ["a command that is not executable", stdio, errno("EACCES"), {}, "SERVER_START_FAILED", /\(EACCES\)/],
    [
      "a handshake timeout",
      stdio,
      new SdkError(SdkErrorCode.RequestTimeout, "t"),
      {},
      "SERVER_START_TIMEOUT",
      /within 3000 ms.*Raise startupTimeout/,
    ],
    [
      "too many listing pages",
      stdio,
      new SdkError(SdkErrorCode.ListPaginationExceeded, "p"),
      {},
      "SERVER_START_FAILED",
      /pagination does not end.*more than 500 pages/,
    ],
    [
      "an exit before the handshake",
      stdio,
      new SdkError(SdkErrorCode.ConnectionClosed, "closed"),
      { exit: { code: 3, signal: null } },
      "SERVER_START_FAILED",
      /exited with code 3 before completing the MCP handshake\. It wrote nothing to stderr\./,
    ],
    [
      "a kill before the handshake",
      stdio,
      new SdkError(SdkErrorCode.ConnectionClosed, "closed"),
      { exit: { code: null, signal: "SIGKILL" } },
      "SERVER_START_FAILED",
      /was killed by SIGKILL/,
    ],
    [
      "an HTTP 401",
      remote,
      new SdkError(SdkErrorCode.ClientHttpAuthentication, "unauthorized", { status: 401 }),
      {},
      "SERVER_START_FAILED",
      /requires authorization: run `mcp-bridge auth login api`/,
    ],
    [
      "an HTTP 500",
      remote,
      new SdkError(SdkErrorCode.ClientHttpNotImplemented, "boom", { status: 500 }),
      {},
      "SERVER_START_FAILED",
      /could not be connected \(HTTP 500\)/,
    ],
  ] as const)("%s", (_, context, error, details, code, message) => {
    const failure = startFailure(error, context, { ...start, ...details });
    expect(failure.code).toBe(code);
    expect(failure.message).toMatch(message);
    expect(failure.message).not.toContain("s3cret");
    expect(failure.server).toBe(context.server);
  });

  it("redacts the URL and quotes the stderr tail", () => {
    const failure = startFailure(
      new Error("nope"),
      { ...remote, stderr: ["a", "", "token s3cret", "b", "c"] },
      start,
    );
    expect(failure.message).toContain("http://127.0.0.1:9/mcp?token=***");
    expect(failure.message).toContain("Last stderr: token *** | b | c");
  });
});

describe("unexpectedStop", () => {
  it.each([
    [{ code: 1, signal: null }, /stopped unexpectedly \(exit code 1\)/],
    [{ code: null, signal: "SIGSEGV" as NodeJS.Signals }, /stopped unexpectedly \(killed by SIGSEGV\)/],
    [undefined, /stopped unexpectedly\./],
  ])("%o", (exit, message) => {
    const error = unexpectedStop(stdio, exit);
    expect(error.code).toBe("SERVER_CRASHED");
    expect(error.message).toMatch(message);
  });
});

describe("callFailure", () => {
  const details = { tool: "t", timeoutMs: 1000, aborted: false, sessionDead: false };
  it.each([
    ["a timeout", stdio, new SdkError(SdkErrorCode.RequestTimeout, "x"), details, "TOOL_TIMEOUT", false],
    ["an abort", stdio, new Error("aborted"), { ...details, aborted: true }, "ABORTED", false],
    [
      "a closed connection",
      stdio,
      new SdkError(SdkErrorCode.ConnectionClosed, "x"),
      details,
      "SERVER_CRASHED",
      false,
    ],
    ["a failed send", stdio, new SdkError(SdkErrorCode.SendFailed, "x"), details, "SERVER_CRASHED", true],
    ["a JSON-RPC error", stdio, new ProtocolError(-32602, "bad params"), details, "TOOL_EXECUTION", false],
    [
      "a result too large",
      stdio,
      new ProtocolError(RESULT_TOO_LARGE_RPC_CODE, "too large"),
      details,
      "RESULT_TOO_LARGE",
      false,
    ],
    [
      "an error on a dead session",
      stdio,
      new Error("x"),
      { ...details, sessionDead: true },
      "SERVER_CRASHED",
      false,
    ],
    ["a refused HTTP connection", remote, errno("ECONNREFUSED"), details, "SERVER_CRASHED", true],
    ["any other error", stdio, new Error("x"), details, "TOOL_EXECUTION", false],
  ] as const)("%s", (_, context, error, callDetails, code, abandon) => {
    const failure = callFailure(error, context, callDetails);
    expect(failure.error.code).toBe(code);
    expect(failure.abandon).toBe(abandon);
  });
});

describe("isNetworkFailure", () => {
  it.each([
    [errno("ECONNREFUSED"), true],
    [new TypeError("fetch failed", { cause: errno("ECONNRESET") }), true],
    [new Error("wrapped", { cause: new TypeError("fetch failed") }), true],
    [errno("ENOENT"), false],
    [new Error("plain"), false],
  ])("%s -> %s", (error, expected) => {
    expect(isNetworkFailure(error)).toBe(expected);
  });
});

describe("pickStderrLines: the line that explains the failure, then the tail", () => {
  const nodeStack = [
    "node:internal/modules/cjs/loader:1228",
    "  throw err;",
    "  ^",
    "",
    "Error: Cannot find module '/srv/missing.js'",
    "    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)",
    "    at node:internal/main/run_main_module:28:49 {",
    "  code: 'MODULE_NOT_FOUND',",
    "  requireStack: []",
    "}",
    "",
    "Node.js v20.11.0",
  ];
  it.each([
    [
      "a Node stack",
      nodeStack,
      ["Error: Cannot find module '/srv/missing.js'", "…", "  requireStack: []", "}", "Node.js v20.11.0"],
    ],
    [
      "a Python traceback",
      [
        "Traceback (most recent call last):",
        '  File "s.py", line 1, in <module>',
        "ValueError: bad port",
        "exiting",
      ],
      ['  File "s.py", line 1, in <module>', "ValueError: bad port", "exiting"],
    ],
    [
      "a Go panic before a long trailer",
      [
        "panic: listen tcp: address in use",
        "",
        "goroutine 1 [running]:",
        "main.main()",
        "\t/src/main.go:12",
        "exit status 2",
      ],
      ["panic: listen tcp: address in use", "…", "main.main()", "\t/src/main.go:12", "exit status 2"],
    ],
    ["an explaining line already in the tail", ["x", "Error: boom", "y"], ["x", "Error: boom", "y"]],
    ["no explaining line", ["one", "two", "three", "four"], ["two", "three", "four"]],
    ["nothing", [], []],
  ])("%s", (_, lines, expected) => {
    expect(pickStderrLines(lines)).toEqual(expected);
  });

  it("the latest explaining line wins (the ring keeps several runs)", () => {
    const lines = ["Error: first run", "a", "b", "c", "Error: second run", "d", "e", "f"];
    expect(pickStderrLines(lines)[0]).toBe("Error: second run");
  });
});

describe("start failures over the network name the cause", () => {
  const fetchFailed = (code: string) =>
    Object.assign(
      new SdkError(SdkErrorCode.ClientHttpNotImplemented, "Version negotiation probe failed: fetch failed"),
      {
        cause: new TypeError("fetch failed", { cause: errno(code) }),
      },
    );
  it.each([
    ["ECONNREFUSED", /could not be connected \(connection refused: nothing is listening there/],
    ["ENOTFOUND", /\(host not found: check the URL's host name\)/],
    ["ETIMEDOUT", /\(connection timed out/],
  ])("%s", (code, message) => {
    const wrapped = new Error("Version negotiation probe failed: fetch failed", {
      cause: new TypeError("fetch failed", { cause: errno(code) }),
    });
    for (const error of [wrapped, fetchFailed(code)]) {
      const failure = startFailure(error, remote, start);
      expect(failure.message).toMatch(message);
      expect(failure.message).not.toContain("fetch failed");
      expect(failure.message).not.toContain("s3cret");
    }
  });

  it("an AggregateError of refused addresses (localhost on IPv4 and IPv6) is a refused connection", () => {
    const error = new TypeError("fetch failed", {
      cause: new AggregateError([errno("ECONNREFUSED"), errno("ECONNREFUSED")]),
    });
    expect(startFailure(error, remote, start).message).toContain("connection refused");
  });

  it("a stdio server is never described as a network failure", () => {
    expect(startFailure(errno("ECONNREFUSED", "boom"), stdio, start).message).toContain(": boom");
  });
});
