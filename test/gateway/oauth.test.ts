import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { connect } from "./client.js";

const ISSUER = "https://auth.example.test";

describe("OAuth resource-server mode (JWT against a JWKS)", () => {
  let jwks: Server;
  let jwksUrl: string;
  let privateKey: CryptoKey;
  let bridge: Bridge;
  let gateway: Gateway;

  const sign = (claims: { aud: string; exp?: number; client_id?: string; iss?: string }) =>
    new SignJWT({ client_id: claims.client_id ?? "agent" })
      .setProtectedHeader({ alg: "RS256", kid: "k1" })
      .setIssuer(claims.iss ?? ISSUER)
      .setAudience(claims.aud)
      .setIssuedAt()
      .setExpirationTime(claims.exp ?? Math.floor(Date.now() / 1000) + 300)
      .sign(privateKey);

  beforeAll(async () => {
    const pair = await generateKeyPair("RS256");
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
    jwks = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
    jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`;
    bridge = await startBridge({
      servers: { normal: inProcessEntry("normal"), slow: inProcessEntry("slow-tool") },
    });
    gateway = await startGateway({
      bridge,
      oauth: { issuer: ISSUER, jwksUrl, profiles: { limited: { servers: ["normal"] } } },
    });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await bridge?.close();
    await new Promise((resolve) => jwks?.close(resolve));
  });

  const post = (token?: string) =>
    fetch(gateway.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });

  it("publishes protected resource metadata and points to it from the 401 challenge", async () => {
    const denied = await post();
    expect(denied.status).toBe(401);
    const challenge = denied.headers.get("www-authenticate") ?? "";
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1] ?? "";
    expect(metadataUrl).toContain("/.well-known/oauth-protected-resource");
    const metadata = await (await fetch(metadataUrl)).json();
    expect(metadata).toMatchObject({ resource: gateway.url, authorization_servers: [ISSUER] });
  });

  it("accepts a valid token and applies the client's profile", async () => {
    await using full = await connect(gateway.url, "2026-07-28", await sign({ aud: gateway.url }));
    expect((await full.listTools()).tools.map((t) => t.name)).toContain("mcp_slow_sleep");
    const limitedToken = await sign({ aud: gateway.url, client_id: "limited" });
    await using limited = await connect(gateway.url, "2025-11-25", limitedToken);
    const names = (await limited.listTools()).tools.map((t) => t.name);
    expect(names.every((n) => n.startsWith("mcp_normal_"))).toBe(true);
  });

  it("refuses a token for another audience, an expired one, and one from another issuer", async () => {
    const cases: [Promise<string>, RegExp][] = [
      [sign({ aud: "https://other.example.test/mcp" }), /claim aud is not valid/],
      [sign({ aud: gateway.url, exp: Math.floor(Date.now() / 1000) - 60 }), /expired/],
      [sign({ aud: gateway.url, iss: "https://evil.example.test" }), /claim iss is not valid/],
    ];
    for (const [token, reason] of cases) {
      const response = await post(await token);
      expect(response.status).toBe(401);
      const challenge = response.headers.get("www-authenticate") ?? "";
      expect(challenge).toContain('error="invalid_token"');
      expect(challenge).toMatch(reason);
    }
  });
});
