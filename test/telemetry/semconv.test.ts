import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  errorTypeOf,
  formatTraceparent,
  operationOf,
  outcomeOf,
  parseTraceparent,
  peerAttributes,
  withMeta,
} from "../../src/telemetry/semconv.js";

const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: length, maxLength: length });

describe("MCP semantic conventions (pure)", () => {
  it("names spans `{method} {target}` with the tool or prompt name, and never with a resource URI", () => {
    expect(operationOf("tools/call", { name: "search" }, 7)).toMatchObject({
      spanName: "tools/call search",
      attributes: {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "search",
        "gen_ai.operation.name": "execute_tool",
      },
      spanAttributes: { "jsonrpc.request.id": "7" },
    });
    expect(operationOf("prompts/get", { name: "review" }).spanName).toBe("prompts/get review");
    const read = operationOf("resources/read", { uri: "file:///etc/hosts" }, "r-1");
    expect(read.spanName).toBe("resources/read");
    expect(read.attributes["mcp.resource.uri"]).toBeUndefined();
    expect(read.spanAttributes).toEqual({
      "mcp.resource.uri": "file:///etc/hosts",
      "jsonrpc.request.id": "r-1",
    });
    // Malformed params from a peer: no target, no throw.
    expect(operationOf("tools/call", { name: { toString: null } }).spanName).toBe("tools/call");
    expect(operationOf("tools/call", "nonsense").spanName).toBe("tools/call");
  });

  it("classifies responses: JSON-RPC error code, tool_error, success", () => {
    expect(outcomeOf("tools/call", { error: { code: -32602, message: "bad" } })).toEqual({
      errorType: "-32602",
      statusCode: "-32602",
      message: "bad",
    });
    expect(outcomeOf("tools/call", { result: { isError: true, content: [] } })).toEqual({
      errorType: "tool_error",
    });
    expect(outcomeOf("prompts/get", { result: { isError: true } })).toEqual({});
    expect(outcomeOf("tools/call", { error: "weird" })).toEqual({});
    expect(outcomeOf("tools/call", { error: { message: { toString: null } } })).toEqual({
      errorType: "_OTHER",
    });
    expect(errorTypeOf(Object.assign(new Error("x"), { status: 503 }))).toBe("503");
    expect(errorTypeOf(Object.assign(new Error("x"), { code: "ECONNREFUSED" }))).toBe("ECONNREFUSED");
    expect(errorTypeOf(new TypeError("x"))).toBe("TypeError");
    expect(errorTypeOf("thrown string")).toBe("_OTHER");
  });

  it("round-trips every valid traceparent and rejects the invalid ones", () => {
    fc.assert(
      fc.property(hex(32), hex(16), fc.integer({ min: 0, max: 255 }), (traceId, spanId, flags) => {
        const parsed = parseTraceparent(formatTraceparent({ traceId, spanId, traceFlags: flags }));
        if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) expect(parsed).toBeUndefined();
        else expect(parsed).toEqual({ traceId, spanId, traceFlags: flags });
      }),
      { numRuns: 200 },
    );
    expect(parseTraceparent("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")).toBeUndefined();
    expect(parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra")).toBeUndefined();
    expect(parseTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra")).toMatchObject({
      traceFlags: 1,
    });
    expect(parseTraceparent("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01")).toBeUndefined();
    expect(
      parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "rojo=00f067aa0ba902b7"),
    ).toMatchObject({ traceState: "rojo=00f067aa0ba902b7" });
  });

  it("never throws on anything a peer can put in _meta", () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (traceparent, tracestate) => {
        const parsed = parseTraceparent(traceparent, tracestate);
        if (parsed) expect(parsed.traceId).toMatch(/^[0-9a-f]{32}$/);
      }),
      { numRuns: 300 },
    );
  });

  it("adds _meta entries to a copy, keeping the caller's", () => {
    const params = { name: "t", _meta: { progressToken: 3 } };
    expect(withMeta(params, { traceparent: "x" })).toEqual({
      name: "t",
      _meta: { progressToken: 3, traceparent: "x" },
    });
    expect(params._meta).toEqual({ progressToken: 3 });
    expect(withMeta(undefined, { traceparent: "x" })).toEqual({ _meta: { traceparent: "x" } });
  });

  it("describes the peer: pipe for stdio, tcp with address and port for HTTP", () => {
    expect(peerAttributes({ transport: "stdio" })).toEqual({ "network.transport": "pipe" });
    expect(peerAttributes({ transport: "http", url: "https://mcp.example.com/mcp" })).toEqual({
      "network.transport": "tcp",
      "network.protocol.name": "http",
      "server.address": "mcp.example.com",
      "server.port": 443,
    });
    expect(peerAttributes({ transport: "sse", url: "http://[::1]:8080/sse" })).toMatchObject({
      "server.address": "::1",
      "server.port": 8080,
    });
  });
});
