import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, RequestForwarder, startGateway } from "../../src/apps/gateway/index.js";
import { codeModeBridge } from "../../src/codemode/code-mode-bridge.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { type OAuthTestServer, startOAuthServer } from "../helpers/oauth-server.js";
import { hasRedis, type RedisServer, startRedisServer } from "../helpers/redis-server.js";
import { textOf } from "./client.js";

const TOKENS = [
  { token: "token-of-alice", client: "alice" },
  { token: "token-of-bob", client: "bob" },
];

/**
 * Per-caller mode (`"oauth": { "perCaller": true }`): each gateway client reaches the OAuth-protected
 * upstream with tokens of its own, obtained with its consent (a URL-mode elicitation; the "browser"
 * here is fetch, following the authorization server's redirect to the gateway's callback). The
 * upstream records the Authorization header of every call: one caller's call never carries another's.
 */
describe("per-caller upstream identity behind the gateway", () => {
  let oauth: OAuthTestServer;
  let dir: string;
  let bridge: Bridge;
  let gateway: Gateway;
  const clients: Client[] = [];

  const start = async () => {
    const forwarder = new RequestForwarder();
    bridge = await startBridge({
      servers: { remote: { type: "http", url: oauth.url, oauth: { perCaller: true } } },
      // The gateway's own login (it lists the tools), approved without a person by the test server.
      auth: { storageDir: join(dir, "gateway"), authorization: "headless" },
      onElicitation: forwarder.elicitation,
      onSampling: forwarder.sampling,
    });
    gateway = await startGateway({ bridge, forwarder, tokens: TOKENS, callerAuthDir: join(dir, "callers") });
  };
  const stop = async () => {
    for (const client of clients.splice(0)) await client.close();
    await gateway.close();
    await bridge.close();
  };

  /** A gateway client that consents to every authorization it is asked for, and opens the page. */
  const connect = async (token: string) => {
    const asked: string[] = [];
    const client = new Client(
      { name: "caller", version: "1.0.0" },
      { capabilities: { elicitation: { url: {} } } },
    );
    client.setRequestHandler("elicitation/create", async (request) => {
      const url = (request.params as { url?: string }).url ?? "";
      asked.push(url);
      // The person opens the page after saying yes; the login ends at the gateway's callback.
      setImmediate(() => void fetch(url).then((page) => page.text()));
      return { action: "accept" };
    });
    const headers = { authorization: `Bearer ${token}` };
    await client.connect(
      new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers } }),
    );
    clients.push(client);
    return { client, asked };
  };
  const add = async (client: Client, a: number, b: number) => {
    const result = await client.callTool({ name: "mcp_remote_add", arguments: { a, b } });
    expect(result.isError, textOf(result)).toBeFalsy();
    return textOf(result);
  };
  /** The Authorization header the upstream saw on the call with these arguments. */
  const sentWith = (a: number, b: number) =>
    oauth.toolCalls.filter((call) => call.a === a && call.b === b).map((call) => call.authorization);

  beforeAll(async () => {
    oauth = await startOAuthServer();
    dir = mkdtempSync(join(tmpdir(), "mcp-bridge-per-caller-"));
    await start();
  }, 60_000);

  afterAll(async () => {
    await stop().catch(() => {});
    await oauth.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("asks each caller once, and each call carries its own caller's token, across a restart, a reload and a refresh", async () => {
    const gatewayToken = oauth.issuedTokens[0];
    const alice = await connect(TOKENS[0]?.token ?? "");
    expect(await add(alice.client, 1, 1)).toBe("2");
    expect(alice.asked).toHaveLength(1);
    expect(alice.asked[0]).toContain("/authorize");
    const aliceToken = sentWith(1, 1)[0];

    const bob = await connect(TOKENS[1]?.token ?? "");
    expect(await add(bob.client, 2, 2)).toBe("4");
    expect(bob.asked).toHaveLength(1);
    const bobToken = sentWith(2, 2)[0];

    expect(aliceToken).toMatch(/^Bearer tok-/);
    expect(bobToken).toMatch(/^Bearer tok-/);
    expect(new Set([aliceToken, bobToken, `Bearer ${gatewayToken}`]).size).toBe(3);

    // Concurrent calls of both: each with its own token, nobody asked again.
    await Promise.all([
      add(alice.client, 1, 2),
      add(bob.client, 2, 3),
      add(alice.client, 1, 3),
      add(bob.client, 2, 4),
    ]);
    expect([...sentWith(1, 2), ...sentWith(1, 3)]).toEqual([aliceToken, aliceToken]);
    expect([...sentWith(2, 3), ...sentWith(2, 4)]).toEqual([bobToken, bobToken]);
    expect(alice.asked).toHaveLength(1);
    expect(bob.asked).toHaveLength(1);
    // One token file per caller, beside none of the gateway's own.
    expect(readdirSync(join(dir, "callers")).filter((f) => f.endsWith(".json"))).toHaveLength(2);

    // REST never asks, but serves a caller who authorized with its tokens; another is told to authorize.
    const rest = (token: string, a: number, b: number, url = gateway.url) =>
      fetch(new URL("/tools/mcp_remote_add", url), {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ a, b }),
      });
    expect((await rest(TOKENS[0]?.token ?? "", 1, 4)).status).toBe(200);
    expect(sentWith(1, 4)).toEqual([aliceToken]);
    const carol = await startGateway({
      bridge,
      tokens: [{ token: "token-of-carol", client: "carol" }],
      callerAuthDir: join(dir, "callers"),
    });
    try {
      const refused = await rest("token-of-carol", 3, 4, carol.url);
      expect(await refused.text()).toContain("needs your own authorization");
      expect(sentWith(3, 4)).toEqual([]);
    } finally {
      await carol.close();
    }

    // A reload keeps each caller's connection and tokens.
    await bridge.reload();
    expect(await add(bob.client, 2, 5)).toBe("7");
    expect(await add(alice.client, 1, 5)).toBe("6");
    expect(sentWith(2, 5)).toEqual([bobToken]);
    expect(sentWith(1, 5)).toEqual([aliceToken]);

    // A restarted gateway finds each caller's tokens under its identity: nobody is asked again.
    await stop();
    await start();
    const alice2 = await connect(TOKENS[0]?.token ?? "");
    const bob2 = await connect(TOKENS[1]?.token ?? "");
    expect(await add(bob2.client, 2, 6)).toBe("8");
    expect(await add(alice2.client, 1, 6)).toBe("7");
    expect(sentWith(2, 6)).toEqual([bobToken]);
    expect(sentWith(1, 6)).toEqual([aliceToken]);
    expect(alice2.asked).toEqual([]);
    expect(bob2.asked).toEqual([]);

    // Every token refused: each caller refreshes its own pair (rotating, no grace window) and goes on.
    oauth.expireAccessTokens();
    const refreshes = oauth.refreshRequests;
    expect(await add(alice2.client, 1, 7)).toBe("8");
    expect(await add(bob2.client, 2, 7)).toBe("9");
    const [aliceNew] = sentWith(1, 7);
    const [bobNew] = sentWith(2, 7);
    expect(new Set([aliceNew, bobNew, aliceToken, bobToken]).size).toBe(4);
    expect(oauth.refreshRequests).toBe(refreshes + 2);
    expect(oauth.reusedRefreshTokens).toBe(0);
    expect(await add(alice2.client, 1, 8)).toBe("9");
    expect(sentWith(1, 8)).toEqual([aliceNew]);
    expect(alice2.asked).toEqual([]);
    expect(bob2.asked).toEqual([]);

    // A code-mode program's calls are its sender's: they go with that caller's tokens too.
    const coded = await startGateway({
      bridge: codeModeBridge(bridge),
      tokens: TOKENS,
      callerAuthDir: join(dir, "callers"),
    });
    try {
      const headers = { authorization: `Bearer ${TOKENS[1]?.token}` };
      const viaCode = new Client({ name: "caller", version: "1.0.0" });
      await viaCode.connect(
        new StreamableHTTPClientTransport(new URL(coded.url), { requestInit: { headers } }),
      );
      clients.push(viaCode);
      const run = await viaCode.callTool({
        name: "execute_code",
        arguments: { code: "return (await tools.remote.add({ a: 4, b: 4 })).text;" },
      });
      expect(textOf(run), textOf(run)).toContain("8");
      expect(sentWith(4, 4)).toEqual([bobNew]);
    } finally {
      await coded.close();
    }

    // The gateway's own token never went with a call.
    expect(oauth.toolCalls.some((call) => call.authorization === `Bearer ${gatewayToken}`)).toBe(false);
  }, 120_000);

  it("a caller that declines is told so, and its next call asks again", async () => {
    const client = new Client(
      { name: "caller", version: "1.0.0" },
      { capabilities: { elicitation: { url: {} } } },
    );
    let asked = 0;
    client.setRequestHandler("elicitation/create", async () => {
      asked++;
      return { action: "decline" };
    });
    const dave = [...TOKENS, { token: "token-of-dave", client: "dave" }];
    await stop();
    const forwarder = new RequestForwarder();
    bridge = await startBridge({
      servers: { remote: { type: "http", url: oauth.url, oauth: { perCaller: true } } },
      auth: { storageDir: join(dir, "gateway"), authorization: "headless" },
      onElicitation: forwarder.elicitation,
    });
    gateway = await startGateway({ bridge, forwarder, tokens: dave, callerAuthDir: join(dir, "callers") });
    const headers = { authorization: "Bearer token-of-dave" };
    await client.connect(
      new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers } }),
    );
    clients.push(client);
    const calls = oauth.toolCalls.length;
    const first = await client.callTool({ name: "mcp_remote_add", arguments: { a: 3, b: 3 } });
    expect(first.isError).toBe(true);
    expect(textOf(first)).toContain("declined");
    const second = await client.callTool({ name: "mcp_remote_add", arguments: { a: 3, b: 3 } });
    expect(second.isError).toBe(true);
    expect(asked).toBe(2);
    expect(oauth.toolCalls.length).toBe(calls);
  }, 60_000);
});

/** Two replicas with the cluster store and one token folder: a caller's login made on one serves it on the other. */
describe.skipIf(!hasRedis)("per-caller identity across replicas with the cluster store", () => {
  let oauth: OAuthTestServer;
  let redis: RedisServer;
  let dir: string;
  const running: { bridge: Bridge; gateway: Gateway }[] = [];
  const clients: Client[] = [];
  const secret = randomBytes(32);

  const replica = async (id: string) => {
    const forwarder = new RequestForwarder();
    const bridge = await startBridge({
      servers: { remote: { type: "http", url: oauth.url, oauth: { perCaller: true } } },
      auth: { storageDir: join(dir, "gateway"), authorization: "headless" },
      onElicitation: forwarder.elicitation,
    });
    const gateway = await startGateway({
      bridge,
      forwarder,
      tokens: TOKENS,
      callerAuthDir: join(dir, "callers"),
      store: redis.url,
      clusterSecret: secret,
      replicaId: id,
    });
    running.push({ bridge, gateway });
    return gateway;
  };
  const connect = async (gateway: Gateway, token: string) => {
    const asked: string[] = [];
    const client = new Client(
      { name: "caller", version: "1.0.0" },
      { capabilities: { elicitation: { url: {} } } },
    );
    client.setRequestHandler("elicitation/create", async (request) => {
      const url = (request.params as { url?: string }).url ?? "";
      asked.push(url);
      setImmediate(() => void fetch(url).then((page) => page.text()));
      return { action: "accept" };
    });
    const headers = { authorization: `Bearer ${token}` };
    await client.connect(
      new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers } }),
    );
    clients.push(client);
    return { client, asked };
  };
  const add = async (client: Client, a: number, b: number) => {
    const result = await client.callTool({ name: "mcp_remote_add", arguments: { a, b } });
    expect(result.isError, textOf(result)).toBeFalsy();
    return oauth.toolCalls.filter((call) => call.a === a && call.b === b).map((call) => call.authorization);
  };

  beforeAll(async () => {
    oauth = await startOAuthServer();
    redis = await startRedisServer();
    dir = mkdtempSync(join(tmpdir(), "mcp-bridge-per-caller-replicas-"));
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    for (const { gateway, bridge } of running) {
      await gateway.close();
      await bridge.close();
    }
    redis?.stop();
    await oauth.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a caller authorized on one replica is served with its own token on the other, and only its own", async () => {
    const first = await replica("replica-1");
    const second = await replica("replica-2");
    const aliceOnFirst = await connect(first, TOKENS[0]?.token ?? "");
    const [aliceToken] = await add(aliceOnFirst.client, 10, 1);
    expect(aliceOnFirst.asked).toHaveLength(1);

    const bobOnSecond = await connect(second, TOKENS[1]?.token ?? "");
    const [bobToken] = await add(bobOnSecond.client, 20, 1);
    expect(bobOnSecond.asked).toHaveLength(1);
    expect(bobToken).not.toBe(aliceToken);

    const aliceOnSecond = await connect(second, TOKENS[0]?.token ?? "");
    const bobOnFirst = await connect(first, TOKENS[1]?.token ?? "");
    const [aliceCalls, bobCalls] = await Promise.all([
      add(aliceOnSecond.client, 10, 2),
      add(bobOnFirst.client, 20, 2),
    ]);
    expect(aliceCalls).toEqual([aliceToken]);
    expect(bobCalls).toEqual([bobToken]);
    expect(aliceOnSecond.asked).toEqual([]);
    expect(bobOnFirst.asked).toEqual([]);
  }, 120_000);
});
