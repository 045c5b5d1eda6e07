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
import { RESULT_TOO_LARGE_RPC_CODE } from "../../src/transport/stdio.js";

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

describe("pickStderrLines", () => {
  it("keeps the last three non-empty lines", () => {
    expect(pickStderrLines(["1", "", "2", "3", "  ", "4"])).toEqual(["2", "3", "4"]);
  });
});
