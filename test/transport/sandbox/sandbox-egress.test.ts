import { existsSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeServers } from "../../../src/config/normalize.js";
import { type Bridge, startBridge } from "../../../src/index.js";
import { authority, hostAllowed, startEgressProxy } from "../../../src/transport/sandbox/egress-proxy.js";
import { stdioEntry } from "../../fixtures/servers/index.js";

const bwrap = ["/usr/bin/bwrap", "/bin/bwrap"].find((path) => existsSync(path));
const skip =
  process.platform !== "linux" ? "sandbox tests need Linux" : bwrap ? undefined : "bwrap is not installed";
if (skip) console.log(`skipped: ${skip}`);

describe("which hosts a list allows", () => {
  it("a name matches itself, any case; *.domain matches names below it, not the domain", () => {
    const list = ["api.github.com", "*.npmjs.org"];
    expect(hostAllowed("api.github.com", list)).toBe(true);
    expect(hostAllowed("API.GitHub.com.", list)).toBe(true);
    expect(hostAllowed("registry.npmjs.org", list)).toBe(true);
    expect(hostAllowed("a.b.npmjs.org", list)).toBe(true);
    expect(hostAllowed("npmjs.org", list)).toBe(false);
    expect(hostAllowed("evilnpmjs.org", list)).toBe(false);
    expect(hostAllowed("github.com", list)).toBe(false);
    expect(hostAllowed("api.github.com.evil.com", list)).toBe(false);
  });

  it("never allows a name outside every entry (property)", () => {
    const label = fc.stringMatching(/^[a-z0-9]{1,8}$/);
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 3 }), label, (parts, other) => {
        const domain = parts.join(".");
        expect(hostAllowed(`${other}.${domain}`, [`*.${domain}`])).toBe(true);
        expect(hostAllowed(`${other}${domain}`, [`*.${domain}`])).toBe(false);
        expect(hostAllowed(domain, [`*.${domain}`])).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it("CONNECT targets are host:port, IPv6 in brackets", () => {
    expect(authority("example.com:443")).toEqual({ host: "example.com", port: 443 });
    expect(authority("[::1]:8443")).toEqual({ host: "::1", port: 8443 });
    for (const bad of ["example.com", "example.com:0", "example.com:70000", "a:b:1"])
      expect(authority(bad)).toBeUndefined();
  });

  it("the config takes a list as network, checks each host, and keeps true and false", () => {
    const load = (network: unknown) =>
      normalizeServers([["s", { command: "node", sandbox: { network } }]], {
        env: {},
        homeDir: "/home/u",
        format: "object",
      });
    expect(load(["api.github.com", "*.npmjs.org"]).servers[0]).toMatchObject({
      sandbox: { network: false, hosts: ["api.github.com", "*.npmjs.org"] },
    });
    expect(load(true).servers[0]).toMatchObject({ sandbox: { network: true } });
    expect(load(false).servers[0]).toMatchObject({ sandbox: { network: false } });
    expect(load(false).servers[0]?.transport === "stdio" && load(false).servers[0]).not.toHaveProperty(
      "sandbox.hosts",
    );
    for (const bad of [["https://x.com"], ["x.com:443"], ["*"], [""], [3]]) {
      const config = load(bad);
      expect(config.servers).toEqual([]);
      expect(config.warnings[0]?.message).toMatch(/sandbox.network\[0\]/);
    }
  });
});

/** A local web server that says which name it was asked for. */
function webServer(): Promise<Server> {
  const server = createServer((req, res) => res.end(`hello ${req.headers.host}`));
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

describe("the egress proxy on its own", () => {
  it("forwards a plain-HTTP request to a listed host and refuses another", async () => {
    const web = await webServer();
    const port = (web.address() as AddressInfo).port;
    const proxy = await startEgressProxy(["localhost"]);
    const get = (host: string) =>
      new Promise<string>((resolve, reject) => {
        const req = request({ socketPath: proxy.socket, path: `http://${host}:${port}/`, headers: { host } });
        req.once("response", (res) => {
          let body = "";
          res.on("data", (chunk) => {
            body += chunk;
          });
          res.once("end", () => resolve(`${res.statusCode} ${body.trim()}`));
        });
        req.once("error", reject);
        req.end();
      });
    try {
      expect(await get("localhost")).toBe("200 hello localhost");
      expect(await get("127.0.0.1")).toMatch(/^403 mcp-bridge: 127.0.0.1 is not in .*"network" list/);
    } finally {
      proxy.close();
      web.close();
    }
  });
});

/**
 * Real bubblewrap and a real local web server: the server may reach "localhost" only through the
 * proxy; the same web server by another name ("127.0.0.1") is refused, and nothing goes out directly.
 */
describe.skipIf(skip !== undefined)("a sandboxed server with a host list", () => {
  let bridge: Bridge;
  let web: Server;
  let port: number;

  beforeAll(async () => {
    web = await webServer();
    port = (web.address() as AddressInfo).port;
    bridge = await startBridge({
      servers: {
        listed: stdioEntry("probe-server", { sandbox: { network: ["localhost"] }, restart: false }),
      },
    });
    await bridge.ready();
    expect(bridge.server("listed")?.state, bridge.server("listed")?.lastError?.message).toBe("connected");
  }, 60_000);

  afterAll(async () => {
    await bridge?.close();
    web?.close();
  });

  it("reaches a listed host through the proxy", async () => {
    expect((await bridge.call("listed/proxy_get", { host: "localhost", port })).text).toBe("hello localhost");
  });

  it("is refused a host outside the list, and has no direct route", async () => {
    expect((await bridge.call("listed/proxy_get", { host: "127.0.0.1", port })).text).toBe("PROXY 403");
    expect((await bridge.call("listed/connect", { host: "127.0.0.1", port })).text).toMatch(/^ERROR E/);
    expect((await bridge.call("listed/connect", { host: "1.1.1.1", port: 443 })).text).toMatch(/^ERROR E/);
  });

  it("is told the proxy in HTTPS_PROXY and HTTP_PROXY", async () => {
    const env = JSON.parse((await bridge.call("listed/env")).text) as Record<string, string>;
    expect(env.HTTPS_PROXY).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(env.HTTP_PROXY).toBe(env.HTTPS_PROXY);
  });
});
