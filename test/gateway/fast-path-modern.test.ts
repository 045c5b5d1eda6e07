import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, RequestForwarder, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";

// The HTTP fast path for stateless 2026-07-28 tool calls (src/apps/gateway/fast-path/modern-call.ts)
// answers exactly what the SDK path answers: two gateways over one bridge, one with the fast path and
// one without, get the same generated requests (headers, `_meta` envelopes, retries) and must give the
// same status, headers and body text. Sealed tokens and parked-call ids are random per gateway, so a
// `requestState` in an answer is compared by presence only, and each side retries with its own.

const FULL = "full-token";
const NARROW = "narrow-token";
const TOKENS = [
  { token: FULL, client: "full" },
  { token: NARROW, client: "narrow", profile: { servers: ["normal", "twice"] } },
];
const REVISION = "2026-07-28";
const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const INFO_KEY = "io.modelcontextprotocol/clientInfo";
const CAPS_KEY = "io.modelcontextprotocol/clientCapabilities";

interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  body: string;
}

const HEADERS = ["content-type", "cache-control", "x-accel-buffering", "www-authenticate", "mcp-session-id"];
const TOKEN_PATTERN = /"requestState":"[^"]*"/g;

async function post(url: string, headers: Record<string, string>, body: string): Promise<Answer> {
  const response = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(20_000) });
  const picked: Record<string, string | undefined> = {};
  for (const name of HEADERS) picked[name] = response.headers.get(name) ?? undefined;
  return { status: response.status, headers: picked, body: await response.text() };
}

/** An answer with its sealed token (random per gateway) replaced by a marker. */
const comparable = (answer: Answer) => ({
  ...answer,
  body: answer.body.replace(TOKEN_PATTERN, '"requestState":"<token>"'),
});

const tokenOf = (answer: Answer): string | undefined => {
  try {
    const parsed = JSON.parse(answer.body) as { result?: { requestState?: unknown } };
    const state = parsed.result?.requestState;
    return typeof state === "string" ? state : undefined;
  } catch {
    return undefined;
  }
};

describe("the HTTP fast path answers stateless 2026-07-28 calls as the SDK path does", () => {
  // One bridge (and forwarder) per gateway: a call parked on one side must not make the other side's
  // upstream server see two calls at once (its questions would then get the default answer).
  const bridges: Bridge[] = [];
  const gateways: { fast?: Gateway; sdk?: Gateway } = {};

  beforeAll(async () => {
    for (const side of ["fast", "sdk"] as const) {
      const forwarder = new RequestForwarder();
      const bridge = await startBridge({
        servers: {
          normal: stdioEntry("normal"),
          content: stdioEntry("content-types"),
          twice: stdioEntry("asks-twice"),
          secret: stdioEntry("asks-for-secret"),
          off: { ...stdioEntry("normal"), disabled: true },
        },
        onElicitation: forwarder.elicitation,
        onSampling: forwarder.sampling,
      });
      bridges.push(bridge);
      await bridge.ready();
      const options = { bridge, forwarder, tokens: TOKENS, maxBodyBytes: 64 * 1024 };
      gateways[side] = await startGateway({ ...options, fastPath: side === "fast" });
    }
  }, 60_000);

  afterAll(async () => {
    await gateways.fast?.close();
    await gateways.sdk?.close();
    for (const bridge of bridges) await bridge.close();
  });

  // Most generated requests are ones the fast path takes; the rest check that it leaves them alone.
  const mostly = <T, U>(taken: fc.Arbitrary<T>, left: fc.Arbitrary<U>) =>
    fc.oneof({ arbitrary: taken, weight: 19 }, { arbitrary: left, weight: 1 });
  const id = mostly(
    fc.oneof(fc.integer({ min: -1000, max: 100_000 }), fc.string({ maxLength: 12 })),
    fc.constantFrom(null, 1.5, undefined),
  );
  const name = mostly(
    fc.constantFrom(
      "mcp_normal_echo",
      "mcp_normal_add",
      "mcp_normal_divide",
      "mcp_content_text",
      "mcp_content_image",
      "mcp_twice_two_questions",
      "mcp_secret_login",
      "mcp_off_echo",
      "mcp_nope_nothing",
    ),
    fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom(42, null, undefined, "")),
  );
  const args = mostly(
    fc.oneof(
      fc.record({ text: fc.string({ maxLength: 30 }) }),
      fc.record({ a: fc.integer(), b: fc.oneof(fc.integer(), fc.string({ maxLength: 3 })) }),
      fc.constantFrom(undefined, {}, { extra: true }),
    ),
    fc.constantFrom(null, [1, 2], "text"),
  );
  const capabilities = fc.constantFrom(
    undefined,
    {},
    { elicitation: {} },
    { elicitation: { form: {} } },
    { elicitation: { url: {} } },
    { sampling: {} },
  );
  const meta = fc.record({
    version: mostly(fc.constant(REVISION), fc.constantFrom(undefined, "2025-11-25", "2027-01-01", 7)),
    info: mostly(fc.constant({ name: "prop", version: "1" }), fc.constantFrom(undefined, "x", { name: 1 })),
    capabilities: mostly(capabilities, fc.constantFrom("caps", null)),
    extra: mostly(
      fc.constantFrom(undefined, { trace: "x" }),
      fc.constantFrom(
        { progressToken: "p1" },
        { "io.modelcontextprotocol/logLevel": "debug" },
        { "io.modelcontextprotocol/x": 1 },
      ),
    ),
  });
  const header = <T>(usual: T, others: fc.Arbitrary<T | undefined | "">) =>
    mostly(fc.constant(usual), others);
  const headers = fc.record({
    token: mostly(fc.constantFrom("full", "narrow"), fc.constantFrom("bad", "none")),
    version: header(REVISION, fc.constantFrom(undefined, "2025-11-25", "2026-01-01", " 2026-07-28")),
    method: header("tools/call", fc.constantFrom(undefined, "tools/list", "Tools/Call")),
    name: header<"same" | "other" | "base64">("same", fc.constantFrom(undefined, "other", "base64")),
    accept: mostly(
      fc.constantFrom("application/json, text/event-stream", "application/json"),
      fc.constantFrom(undefined, "text/html", "*/*"),
    ),
    contentType: mostly(
      fc.constantFrom("application/json", "application/json; charset=utf-8"),
      fc.constant("text/plain"),
    ),
  });
  const retry = mostly(
    fc.constant(undefined),
    fc.constantFrom<unknown>("forged", "v1.AAAA", 12, { inputResponses: "no" }),
  );
  const extraParams = mostly(
    fc.constant(undefined),
    fc.constantFrom({ task: { ttl: 1000 } }, { cursor: "c" }),
  );

  const send = (side: "fast" | "sdk", h: Record<string, string>, body: string) =>
    post(gateways[side]?.url ?? "", h, body);

  it("for generated requests, headers, envelopes and forged retries (150 runs)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          id,
          name,
          args,
          meta,
          headers,
          retry,
          extraParams,
          batch: mostly(fc.constant(false), fc.constant(true)),
        }),
        async (r) => {
          const envelope: Record<string, unknown> = { ...(r.meta.extra ?? {}) };
          if (r.meta.version !== undefined) envelope[VERSION_KEY] = r.meta.version;
          if (r.meta.info !== undefined) envelope[INFO_KEY] = r.meta.info;
          if (r.meta.capabilities !== undefined) envelope[CAPS_KEY] = r.meta.capabilities;
          const params: Record<string, unknown> = { _meta: envelope, ...(r.extraParams ?? {}) };
          if (r.name !== undefined) params.name = r.name;
          if (r.args !== undefined) params.arguments = r.args;
          if (typeof r.retry === "object" && r.retry !== null) Object.assign(params, r.retry);
          else if (r.retry !== undefined) params.requestState = r.retry;
          const message: Record<string, unknown> = { jsonrpc: "2.0", method: "tools/call", params };
          if (r.id !== undefined) message.id = r.id;
          const body = JSON.stringify(r.batch ? [message] : message);
          const h: Record<string, string> = { "content-type": r.headers.contentType };
          const hd = r.headers;
          if (hd.accept) h.accept = hd.accept;
          if (hd.token === "full") h.authorization = `Bearer ${FULL}`;
          if (hd.token === "narrow") h.authorization = `Bearer ${NARROW}`;
          if (hd.token === "bad") h.authorization = "Bearer nope";
          if (hd.version) h["mcp-protocol-version"] = hd.version;
          if (hd.method) h["mcp-method"] = hd.method;
          const shown = typeof r.name === "string" ? r.name : "x";
          if (hd.name === "same") h["mcp-name"] = shown;
          if (hd.name === "other") h["mcp-name"] = `${shown}_other`;
          if (hd.name === "base64") h["mcp-name"] = `=?base64?${Buffer.from(shown).toString("base64")}?=`;
          const fast = await send("fast", h, body);
          const sdk = await send("sdk", h, body);
          expect(comparable(fast)).toEqual(comparable(sdk));
        },
      ),
      { numRuns: 150 },
    );
  }, 240_000);

  /** A first call and its retries, each side with its own tokens. */
  const roundHeaders = (tool: string, token: string | undefined) => {
    const h: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": REVISION,
      "mcp-method": "tools/call",
      "mcp-name": tool,
    };
    if (token) h.authorization = `Bearer ${token}`;
    return h;
  };
  const roundBody = (id: number, tool: string, caps: unknown, extra: Record<string, unknown> = {}): string =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name: tool,
        arguments: {},
        _meta: { [VERSION_KEY]: REVISION, [INFO_KEY]: { name: "prop", version: "1" }, [CAPS_KEY]: caps },
        ...extra,
      },
    });

  it("for input rounds: questions, retries with valid, tampered, foreign and replayed tokens (100 runs)", async () => {
    const answer = fc.constantFrom<unknown>(
      undefined,
      { action: "accept", content: { first: "a", second: "b", apiKey: "k" } },
      { action: "decline" },
      "not an object",
    );
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          tool: fc.constantFrom("mcp_twice_two_questions", "mcp_secret_login"),
          caps: fc.constantFrom<unknown>(
            { elicitation: { form: {} } },
            { elicitation: {} },
            {},
            { elicitation: { url: {} } },
          ),
          token: fc.constantFrom(FULL, NARROW),
          retryToken: fc.constantFrom(FULL, NARROW, undefined),
          key: fc.constantFrom("first", "second", "upstream"),
          answer,
          state: fc.constantFrom("own", "tampered", "foreign", "replayed"),
          otherTool: fc.boolean(),
          rounds: fc.integer({ min: 1, max: 2 }),
        }),
        async (r) => {
          const tokens: Record<"fast" | "sdk", string | undefined> = { fast: undefined, sdk: undefined };
          const first = {} as Record<"fast" | "sdk", Answer>;
          for (const side of ["fast", "sdk"] as const) {
            first[side] = await send(side, roundHeaders(r.tool, r.token), roundBody(1, r.tool, r.caps));
            tokens[side] = tokenOf(first[side]);
          }
          expect(comparable(first.fast)).toEqual(comparable(first.sdk));
          for (let round = 0; round < r.rounds; round++) {
            if (tokens.fast === undefined || tokens.sdk === undefined) return;
            const tool = r.otherTool && round === 0 ? "mcp_normal_echo" : r.tool;
            const stateFor = (side: "fast" | "sdk") => {
              const own = tokens[side] as string;
              if (r.state === "tampered") return `${own.slice(0, -3)}${own.endsWith("A") ? "B" : "A"}AA`;
              if (r.state === "foreign") return tokens[side === "fast" ? "sdk" : "fast"] as string;
              return own;
            };
            const states = { fast: stateFor("fast"), sdk: stateFor("sdk") };
            const answers = {} as Record<"fast" | "sdk", Answer>;
            for (const side of ["fast", "sdk"] as const) {
              const extra: Record<string, unknown> = { requestState: states[side] };
              if (r.answer !== undefined) extra.inputResponses = { [r.key]: r.answer };
              const h = roundHeaders(tool, r.retryToken);
              const b = roundBody(2 + round, tool, r.caps, extra);
              answers[side] = await send(side, h, b);
              if (r.state === "replayed") answers[side] = await send(side, h, b);
              tokens[side] = tokenOf(answers[side]);
            }
            expect(comparable(answers.fast)).toEqual(comparable(answers.sdk));
          }
        },
      ),
      { numRuns: 100 },
    );
  }, 240_000);

  it("the fast path did take the calls: its JSON answer has a Content-Length, the SDK path's none", async () => {
    const h = roundHeaders("mcp_normal_echo", FULL);
    const body = roundBody(9, "mcp_normal_echo", {}, {});
    const withArgs = body.replace('"arguments":{}', '"arguments":{"text":"hi"}');
    const fast = await fetch(gateways.fast?.url ?? "", { method: "POST", headers: h, body: withArgs });
    const sdk = await fetch(gateways.sdk?.url ?? "", { method: "POST", headers: h, body: withArgs });
    expect(fast.headers.get("content-length")).not.toBeNull();
    expect(sdk.headers.get("content-length")).toBeNull();
    expect(await fast.text()).toBe(await sdk.text());
  });
});
