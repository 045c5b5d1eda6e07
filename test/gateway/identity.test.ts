import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenMatcher } from "../../src/apps/gateway/identity/static-tokens.js";
import { type Gateway, RequestForwarder, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { connect, textOf } from "./client.js";

const ISSUER = "https://auth.example.test";
/** A static token named "agent", limited to one server. */
const STATIC = "static-agent-token";

/**
 * Who a caller is must come from its credential: a JWT whose client is called "agent" and a static
 * token named "agent" are two callers, which share no session, parked call or limit.
 */
describe("gateway identity is the credential, not the client name", () => {
  let jwks: Server;
  let privateKey: CryptoKey;
  let bridge: Bridge;
  let gateway: Gateway;
  let jwt: string;

  const sign = (claims: { aud: string; sub?: string }) => {
    const token = new SignJWT({ client_id: "agent" })
      .setProtectedHeader({ alg: "RS256", kid: "k1" })
      .setIssuer(ISSUER)
      .setAudience(claims.aud)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + 300);
    return (claims.sub === undefined ? token : token.setSubject(claims.sub)).sign(privateKey);
  };

  beforeAll(async () => {
    const pair = await generateKeyPair("RS256");
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
    jwks = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
    const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`;
    const forwarder = new RequestForwarder();
    bridge = await startBridge({
      servers: {
        normal: inProcessEntry("normal"),
        slow: inProcessEntry("slow-tool"),
        secret: inProcessEntry("asks-for-secret"),
      },
      onElicitation: forwarder.elicitation,
      onSampling: forwarder.sampling,
    });
    gateway = await startGateway({
      bridge,
      forwarder,
      limits: { maxConcurrentCalls: 1, maxQueuedCalls: 0 },
      tokens: [{ token: STATIC, client: "agent", profile: { servers: ["normal"] } }],
      oauth: { issuer: ISSUER, jwksUrl },
    });
    jwt = await sign({ aud: gateway.url });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await bridge?.close();
    await new Promise((resolve) => jwks?.close(resolve));
  });

  const post = (token: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(gateway.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify(body),
    });

  const parse = async (response: Response) => {
    const text = await response.text();
    const json = text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "{}");
    return JSON.parse(json) as {
      result?: { resultType?: string; requestState?: string; tools?: { name: string }[] };
      error?: { message: string };
    };
  };

  it("a static token named like a JWT's client cannot use that client's 2025-11-25 session", async () => {
    await using wide = await connect(gateway.url, "2025-11-25", jwt);
    const sessionId = wide.transport?.sessionId ?? "";
    expect(sessionId).not.toBe("");
    const headers = { "mcp-protocol-version": "2025-11-25", "mcp-session-id": sessionId };
    const list = { jsonrpc: "2.0", id: 7, method: "tools/list" };
    const stolen = await post(STATIC, list, headers);
    // Refused exactly as a session that does not exist.
    expect(stolen.status).toBe(404);
    const unknown = await post(STATIC, list, { ...headers, "mcp-session-id": "not-a-session" });
    expect(await stolen.text()).toBe(await unknown.text());
    const stolenGet = await fetch(gateway.url, {
      headers: { authorization: `Bearer ${STATIC}`, accept: "text/event-stream", ...headers },
    });
    expect(stolenGet.status).toBe(404);
    await stolenGet.body?.cancel();
    // Nor end it: a DELETE with another credential leaves it open.
    const deleted = await fetch(gateway.url, {
      method: "DELETE",
      headers: { authorization: `Bearer ${STATIC}`, ...headers },
    });
    expect(deleted.status).toBe(404);
    expect((await wide.listTools()).tools.map((t) => t.name)).toContain("mcp_slow_sleep");
  });

  it("a static token named like a JWT's client cannot resume that client's parked call", async () => {
    const call = (token: string, retry?: { requestState: string }) =>
      post(
        token,
        {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "mcp_secret_login",
            arguments: {},
            ...(retry
              ? {
                  requestState: retry.requestState,
                  inputResponses: { upstream: { action: "accept", content: { apiKey: "stolen" } } },
                }
              : {}),
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
              "io.modelcontextprotocol/clientInfo": { name: "agent", version: "1" },
            },
          },
        },
        { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "mcp_secret_login" },
      ).then(parse);
    const first = await call(jwt);
    expect(first.result?.resultType).toBe("input_required");
    const stolen = await call(STATIC, { requestState: first.result?.requestState as string });
    expect(stolen.error?.message).toMatch(/Unknown or expired requestState/);
  });

  it("a static token named like a JWT's client has its own call limit", async () => {
    // Its own subject: the parked call above still holds the first JWT's one slot.
    await using wide = await connect(gateway.url, "2026-07-28", await sign({ aud: gateway.url, sub: "u2" }));
    await using narrow = await connect(gateway.url, "2026-07-28", STATIC);
    const running = wide.callTool({ name: "mcp_slow_sleep", arguments: { ms: 3_000 } });
    // The JWT client's one allowed call is running; a second of its own is refused...
    await expect(
      (async () => {
        for (let i = 0; i < 200; i++) {
          await wide.callTool({ name: "mcp_normal_echo", arguments: { text: "x" } });
          await new Promise((r) => setTimeout(r, 20));
        }
      })(),
    ).rejects.toThrow(/at most 1 calls may run at once/);
    // ...while the static token, another caller, is not held to it.
    const own = await narrow.callTool({ name: "mcp_normal_echo", arguments: { text: "mine" } });
    expect(textOf(own)).toContain("mine");
    await running;
  });

  it("refuses two tokens with one client name or one value", () => {
    expect(() =>
      tokenMatcher([
        { token: "a", client: "x" },
        { token: "b", client: "x" },
      ]),
    ).toThrow(/same client name "x"/);
    expect(() => tokenMatcher([{ token: "a" }, { token: "a" }])).toThrow(/same token/);
    // An unnamed token never takes the name of a named one.
    const match = tokenMatcher([{ token: "a" }, { token: "b", client: "token-1" }]);
    expect(match("a")?.client).not.toBe("token-1");
  });
});
