import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";

// The HTTP fast path (src/apps/gateway/fast-path/) answers exactly what the SDK path answers: two
// gateways over one bridge, one with the fast path and one without, get the same generated requests.

const FULL = "full-token";
const NARROW = "narrow-token";
const TOKENS = [
  { token: FULL, client: "full" },
  { token: NARROW, client: "narrow", profile: { servers: ["normal"] } },
];

interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  body: unknown;
}

/** The headers a client acts on; a session id is the gateway's own random value, so only its presence. */
const HEADERS = ["content-type", "cache-control", "x-accel-buffering", "www-authenticate", "mcp-session-id"];

async function post(url: string, headers: Record<string, string>, body: string): Promise<Answer> {
  const response = await fetch(url, {
    method: "POST",
    headers,
    body,
    signal: AbortSignal.timeout(20_000),
  });
  const text = await response.text();
  const type = response.headers.get("content-type") ?? "";
  const picked: Record<string, string | undefined> = {};
  for (const name of HEADERS) picked[name] = response.headers.get(name) ?? undefined;
  if (picked["mcp-session-id"] !== undefined) picked["mcp-session-id"] = "<session>";
  return {
    status: response.status,
    headers: picked,
    body: type.startsWith("text/event-stream") ? events(text) : parsed(text),
  };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** An event stream's data, event by event (comments and empty priming data left out). */
function events(text: string): unknown[] {
  return text
    .split("\n\n")
    .map((event) =>
      event
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trim())
        .join("\n"),
    )
    .filter((data) => data !== "")
    .map(parsed);
}

/** Opens a 2025-11-25 session; its id. */
async function openSession(url: string, token: string): Promise<string> {
  const headers = {
    authorization: `Bearer ${token}`,
    accept: "application/json, text/event-stream",
    "content-type": "application/json",
  };
  const init = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "prop", version: "1" } },
    }),
  });
  await init.text();
  const session = init.headers.get("mcp-session-id");
  if (!session) throw new Error(`no session (${init.status})`);
  await fetch(url, {
    method: "POST",
    headers: { ...headers, "mcp-session-id": session },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  }).then((r) => r.text());
  return session;
}

describe("the HTTP fast path answers as the SDK path does", () => {
  let bridge: Bridge;
  const gateways: { fast: Gateway | undefined; sdk: Gateway | undefined } = {
    fast: undefined,
    sdk: undefined,
  };
  const sessions = { fast: { full: "", narrow: "" }, sdk: { full: "", narrow: "" } };

  beforeAll(async () => {
    bridge = await startBridge({
      servers: {
        normal: stdioEntry("normal"),
        content: stdioEntry("content-types"),
        off: { ...stdioEntry("normal"), disabled: true },
      },
    });
    await bridge.ready();
    gateways.fast = await startGateway({ bridge, tokens: TOKENS, maxBodyBytes: 64 * 1024, fastPath: true });
    gateways.sdk = await startGateway({ bridge, tokens: TOKENS, maxBodyBytes: 64 * 1024, fastPath: false });
    for (const side of ["fast", "sdk"] as const) {
      const url = gateways[side]?.url ?? "";
      sessions[side] = { full: await openSession(url, FULL), narrow: await openSession(url, NARROW) };
    }
  }, 60_000);

  afterAll(async () => {
    await gateways.fast?.close();
    await gateways.sdk?.close();
    await bridge?.close();
  });

  // Most generated requests are ones the fast path takes; the rest check that it leaves them alone.
  const mostly = <T, U>(taken: fc.Arbitrary<T>, left: fc.Arbitrary<U>) =>
    fc.oneof({ arbitrary: taken, weight: 9 }, { arbitrary: left, weight: 1 });
  const id = mostly(
    fc.oneof(fc.integer({ min: -1000, max: 100_000 }), fc.string({ maxLength: 12 })),
    fc.constantFrom(null, 1.5, undefined),
  );
  const name = mostly(
    fc.constantFrom(
      "mcp_normal_echo",
      "mcp_normal_add",
      "mcp_normal_greet",
      "mcp_normal_divide",
      "mcp_content_text",
      "mcp_content_image",
      "mcp_content_resource_text",
      "mcp_off_echo",
      "mcp_nope_nothing",
      "",
    ),
    fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom(42, null, undefined)),
  );
  const args = fc.oneof(
    fc.record({ text: fc.string({ maxLength: 30 }) }),
    fc.record({ a: fc.integer(), b: fc.oneof(fc.integer(), fc.string({ maxLength: 3 })) }),
    fc.record({ name: fc.string({ maxLength: 10 }), polite: fc.boolean() }),
    fc.constantFrom(undefined, null, [1, 2], {}, { extra: true }),
  );
  const meta = mostly(
    fc.constantFrom(undefined, {}, { trace: "x" }),
    fc.constantFrom({ progressToken: "p1" }, "not an object", { "io.modelcontextprotocol/x": 1 }),
  );
  const rarely = mostly(fc.constant(false), fc.constant(true));
  const request = fc.record({
    id,
    name,
    args,
    meta,
    extraKey: rarely,
    batch: rarely,
    method: mostly(fc.constant("tools/call"), fc.constant("tools/list")),
  });
  const headers = fc.record({
    token: mostly(fc.constantFrom("full", "narrow"), fc.constantFrom("none", "bad")),
    session: mostly(fc.constant("own"), fc.constantFrom("foreign", "missing", "unknown")),
    accept: mostly(
      fc.constantFrom(
        "application/json, text/event-stream",
        "text/event-stream, application/json",
        "application/json",
      ),
      fc.constantFrom("*/*", "text/event-stream", "", "text/html"),
    ),
    contentType: mostly(
      fc.constantFrom("application/json", "application/json; charset=utf-8"),
      fc.constant("text/plain"),
    ),
    protocolVersion: mostly(
      fc.constantFrom(undefined, "2025-11-25"),
      fc.constantFrom("2025-06-18", "1999-01-01"),
    ),
  });

  it("for generated tool calls, sessions, credentials and headers (100 runs)", async () => {
    await fc.assert(
      fc.asyncProperty(request, headers, async (r, h) => {
        const message: Record<string, unknown> = { jsonrpc: "2.0", method: r.method };
        if (r.id !== undefined) message.id = r.id;
        const params: Record<string, unknown> = {};
        if (r.name !== undefined) params.name = r.name;
        if (r.args !== undefined) params.arguments = r.args;
        if (r.meta !== undefined) params._meta = r.meta;
        message.params = params;
        if (r.extraKey) message.extra = 1;
        const body = JSON.stringify(r.batch ? [message] : message);
        const answers: Answer[] = [];
        for (const side of ["fast", "sdk"] as const) {
          const own = sessions[side];
          const sent: Record<string, string> = { "content-type": h.contentType };
          if (h.accept !== "") sent.accept = h.accept;
          if (h.token === "full") sent.authorization = `Bearer ${FULL}`;
          if (h.token === "narrow") sent.authorization = `Bearer ${NARROW}`;
          if (h.token === "bad") sent.authorization = "Bearer nope";
          const mine = h.token === "narrow" ? own.narrow : own.full;
          const theirs = h.token === "narrow" ? own.full : own.narrow;
          if (h.session === "own") sent["mcp-session-id"] = mine;
          if (h.session === "foreign") sent["mcp-session-id"] = theirs;
          if (h.session === "unknown") sent["mcp-session-id"] = "not-a-session";
          if (h.protocolVersion) sent["mcp-protocol-version"] = h.protocolVersion;
          answers.push(await post(gateways[side]?.url ?? "", sent, body));
        }
        expect(answers[0]).toEqual(answers[1]);
      }),
      { numRuns: 100 },
    );
  }, 120_000);

  it("the fast path did take calls: a session's tools/call is answered without the SDK transport", async () => {
    // Only the fast path answers a JSON-only client's call without a content-length-free chunked
    // body; here: both answer the same, and the fast side's answer has a Content-Length (res.end).
    const url = gateways.fast?.url ?? "";
    const response = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${FULL}`,
        accept: "application/json",
        "content-type": "application/json",
        "mcp-session-id": sessions.fast.full,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "mcp_normal_echo", arguments: { text: "hi" } },
      }),
    });
    expect(response.headers.get("content-length")).not.toBeNull();
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: { content: [{ type: "text", text: "hi" }] },
    });
  });
});
