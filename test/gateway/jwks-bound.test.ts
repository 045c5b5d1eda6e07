import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jwtVerifier, MAX_JWKS_BYTES } from "../../src/apps/gateway/identity/jwt-auth.js";

const ISSUER = "https://auth.example.test";
const HUGE = 300 * 1024 * 1024;

describe("the JWKS is read within a bound", () => {
  let server: Server;
  let base: string;
  let sent = 0;

  beforeAll(async () => {
    // Answers a 300 MB "JWKS" under either media type, written as the reader takes it (never held whole).
    server = createServer((req, res) => {
      const type = req.url?.includes("jwk-set") ? "application/jwk-set+json" : "application/json";
      res.writeHead(200, { "content-type": type });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      res.write('{"keys":[');
      let written = 0;
      const more = () => {
        while (written < HUGE) {
          written += chunk.length;
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", more);
        }
        res.end("]}");
      };
      res.on("error", () => {});
      more();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  for (const path of ["/jwks", "/jwk-set"]) {
    it(`refuses a 300 MB JWKS (${path}) with a clear reason, having read little of it`, async () => {
      const { privateKey } = await generateKeyPair("RS256");
      const token = await new SignJWT({ client_id: "agent" })
        .setProtectedHeader({ alg: "RS256", kid: "k1" })
        .setIssuer(ISSUER)
        .setAudience("http://gateway/mcp")
        .setExpirationTime(Math.floor(Date.now() / 1000) + 300)
        .sign(privateKey);
      sent = 0;
      const verify = jwtVerifier({ issuer: ISSUER, jwksUrl: `${base}${path}` }, "http://gateway/mcp");
      const outcome = await verify(token);
      expect(outcome.ok).toBe(false);
      expect(outcome.ok ? "" : outcome.reason).toContain(`over ${MAX_JWKS_BYTES} bytes`);
      expect(outcome.ok ? "" : outcome.reason).toContain("JWKS");
      // The rest was never read: far less than the 300 MB reached the gateway.
      expect(sent).toBeLessThan(64 * 1024 * 1024);
    });
  }
});
