import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, RequestForwarder, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { type OAuthTestServer, startOAuthServer } from "../helpers/oauth-server.js";
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
