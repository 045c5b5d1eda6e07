import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { packageInfo } from "../../src/util/package-info.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { connect as connectAs, type Era, textOf } from "./client.js";

const TOKEN = "gateway-test-token";
const LIMITED = "limited-token";
const connect = (url: string, mode: Era, token = TOKEN) => connectAs(url, mode, token);

describe("serve over Streamable HTTP", () => {
  let bridge: Bridge;
  let gateway: Gateway;

  beforeAll(async () => {
    bridge = await startBridge({
      servers: {
        normal: inProcessEntry("normal"),
        crashy: stdioEntry("crash-on-tool"),
        slow: inProcessEntry("slow-tool"),
      },
    });
    gateway = await startGateway({
      bridge,
      maxBodyBytes: 64 * 1024,
      tokens: [
        { token: TOKEN, client: "full" },
        { token: LIMITED, client: "limited", profile: { servers: ["normal"] } },
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await bridge?.close();
  });

  for (const mode of ["2025-11-25", "2026-07-28"] as const) {
    it(`lists the merged catalog and calls a namespaced tool (${mode})`, async () => {
      await using client = await connect(gateway.url, mode);
      expect(client.getNegotiatedProtocolVersion()).toBe(mode);
      // A host logs which gateway it talks to: the advertised version is this package's.
      expect(client.getServerVersion()).toEqual({ name: "mcp-bridge", version: packageInfo().version });
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toContain("mcp_crashy_add");
      expect(names).toContain("mcp_slow_sleep");
      const result = await client.callTool({ name: "mcp_crashy_add", arguments: { a: 2, b: 3 } });
      expect(textOf(result)).toBe("5");
      await expect(client.callTool({ name: "mcp_nope_nothing", arguments: {} })).rejects.toThrow(
        /Unknown tool/,
      );
    });
  }

  it("a profile hides the tools of other servers: not listed, and a call is refused as unknown", async () => {
    await using client = await connect(gateway.url, "2026-07-28", LIMITED);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((n) => n.startsWith("mcp_normal_"))).toBe(true);
    await expect(client.callTool({ name: "mcp_crashy_add", arguments: { a: 1, b: 1 } })).rejects.toThrow(
      /Unknown tool: mcp_crashy_add/,
    );
  });

  it("a 2025-11-25 session belongs to the token that opened it", async () => {
    await using client = await connect(gateway.url, "2025-11-25");
    const sessionId = client.transport?.sessionId ?? "";
    expect(sessionId).not.toBe("");
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
      "mcp-session-id": sessionId,
    };
    const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" });
    const other = await fetch(gateway.url, {
      method: "POST",
      body,
      headers: { ...headers, authorization: `Bearer ${LIMITED}` },
    });
    expect(other.status).toBe(404);
    const unknown = await fetch(gateway.url, {
      method: "POST",
      body,
      headers: { ...headers, "mcp-session-id": "not-a-session", authorization: `Bearer ${TOKEN}` },
    });
    expect(unknown.status).toBe(404);
  });

  it("answers 401 with a Bearer challenge without a token or with a wrong one", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const none = await fetch(gateway.url, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer /);
    const wrong = await fetch(gateway.url, {
      method: "POST",
      body,
      headers: { "content-type": "application/json", authorization: "Bearer not-the-token" },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("answers an oversized body with 413 and malformed JSON with a parse error", async () => {
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${TOKEN}`,
    };
    const big = await fetch(gateway.url, { method: "POST", headers, body: "x".repeat(200 * 1024) });
    expect(big.status).toBe(413);
    const bad = await fetch(gateway.url, { method: "POST", headers, body: "{not json" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it("refuses a request whose Host or Origin is not a loopback name (DNS rebinding)", async () => {
    const url = new URL(gateway.url);
    const post = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              "mcp-protocol-version": "2025-11-25",
              authorization: `Bearer ${TOKEN}`,
              ...headers,
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    expect(await post({ host: "attacker.example" })).toBe(403);
    expect(await post({ host: `attacker.example:${url.port}` })).toBe(403);
    expect(await post({ origin: "http://attacker.example" })).toBe(403);
    expect(await post({})).toBe(200);
    expect(await post({ host: `localhost:${url.port}`, origin: `http://localhost:${url.port}` })).toBe(200);
  });

  it("/healthz and /readyz", async () => {
    const base = new URL(gateway.url);
    expect((await fetch(new URL("/healthz", base))).status).toBe(200);
    const ready = await fetch(new URL("/readyz", base));
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, draining: false, inFlight: 0 });
  });

  it("an upstream crash mid-call is an error result for that client only; a concurrent client's calls succeed", async () => {
    await using crasher = await connect(gateway.url, "2025-11-25");
    await using other = await connect(gateway.url, "2026-07-28");
    const crash = crasher.callTool({ name: "mcp_crashy_crash", arguments: {} });
    const sleeps = Array.from({ length: 3 }, () =>
      other.callTool({ name: "mcp_slow_sleep", arguments: { ms: 200 } }),
    );
    const crashed = await crash;
    expect(crashed.isError).toBe(true);
    expect(textOf(crashed)).toMatch(/crashy/);
    for (const result of await Promise.all(sleeps)) expect(textOf(result)).toBe("slept");
    // The gateway itself still serves the same client.
    expect(textOf(await crasher.callTool({ name: "mcp_normal_echo", arguments: { text: "hi" } }))).toContain(
      "hi",
    );
  }, 30_000);
});
