import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { DEFAULT_RESTART_POLICY, DEFAULT_SETTINGS } from "../../src/config/defaults.js";
import { loadConfig } from "../../src/config/load.js";
import { startBridge } from "../../src/index.js";
import { startHttpFixture, stdioEntry } from "../fixtures/servers/index.js";
import { listen } from "../helpers/http-servers.js";
import { until } from "../helpers/wait.js";

/** A port on 127.0.0.1 that nothing listens on (taken from the OS, then released). */
async function freePort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return String(port);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the defaults (options resolver)", () => {
  it("an unreachable remote server is retried at least every 5 minutes; every server is pinged every 30 s", async () => {
    expect(DEFAULT_RESTART_POLICY.retryCeilingMs).toBe(300_000);
    const config = await loadConfig({
      servers: { local: { command: "node" }, remote: { url: "https://example.test/mcp" } },
      env: {},
      cwd: "/nowhere",
      homeDir: "/nowhere",
    });
    for (const server of config.servers) {
      expect(server.restart.retryCeilingMs, server.name).toBe(300_000);
      expect(server.healthCheckIntervalMs, server.name).toBe(DEFAULT_SETTINGS.healthCheckIntervalMs);
      expect(server.healthCheckIntervalMs).toBe(30_000);
    }
    const tuned = await loadConfig({
      servers: { remote: { url: "https://example.test/mcp", restart: { retryCeiling: "2s" } } },
      env: {},
      cwd: "/nowhere",
      homeDir: "/nowhere",
    });
    expect(tuned.servers[0]?.restart.retryCeilingMs).toBe(2000);
  });
});

describe("remote servers are not given up on", () => {
  // Quick attempts that are used up within a second, then background retries at most 300 ms apart.
  const restart = { initialDelay: "50ms", maxDelay: "100ms", maxAttempts: 3, retryCeiling: "300ms" };

  it("a server down for longer than the restart attempts last is reconnected once it is back on the same port", async () => {
    const first = await startHttpFixture("normal");
    const port = new URL(first.url).port;
    await using bridge = await startBridge({
      servers: { remote: { type: "http", url: first.url, restart } },
      env: {},
    });
    expect(bridge.server("remote")?.state).toBe("connected");
    await first.close();
    // The attempts (3, at most 100 ms apart) are used up: the old code gave up here for good.
    await until(() => bridge.server("remote")?.state === "failed", 15_000);
    await sleep(1500);
    await using second = await startHttpFixture("normal", ["--port", port]);
    expect(second.url).toBe(first.url);
    // No call: the background retry alone brings it back.
    await until(() => bridge.server("remote")?.state === "connected", 15_000);
    expect((await bridge.call("remote/add", { a: 2, b: 3 })).text).toBe("5");
  });

  it("a server that was down when the bridge started is connected once it comes up", async () => {
    const port = await freePort();
    await using bridge = await startBridge({
      servers: { remote: { type: "http", url: `http://127.0.0.1:${port}/mcp`, restart } },
      env: {},
    });
    expect(bridge.server("remote")?.state).toBe("failed");
    await sleep(500);
    await using _server = await startHttpFixture("normal", ["--port", port]);
    await until(() => bridge.server("remote")?.state === "connected", 15_000);
    expect(bridge.tools().some((tool) => tool.name === "mcp_remote_add")).toBe(true);
  });

  it("a call to a failed server retries it at once, whatever the backoff", async () => {
    const port = await freePort();
    // Background retries would come only after minutes: the call itself must retry.
    const slow = { initialDelay: "5m", maxDelay: "5m", retryCeiling: "5m" };
    await using bridge = await startBridge({
      servers: { remote: { type: "http", url: `http://127.0.0.1:${port}/mcp`, restart: slow } },
      env: {},
    });
    expect(bridge.server("remote")?.state).toBe("failed");
    await using _server = await startHttpFixture("normal", ["--port", port]);
    expect((await bridge.call("remote/add", { a: 1, b: 1 }, { timeout: 15_000 })).text).toBe("2");
    expect(bridge.server("remote")?.state).toBe("connected");
  });

  it("a call by the model-facing name of a known tool of a server that went down retries it at once", async () => {
    const first = await startHttpFixture("normal");
    const port = new URL(first.url).port;
    // Quick attempts used up within a second; the background retry would come only minutes later.
    const slow = { initialDelay: "50ms", maxDelay: "100ms", maxAttempts: 2, retryCeiling: "5m" };
    await using bridge = await startBridge({
      servers: { remote: { type: "http", url: first.url, restart: slow } },
      env: {},
    });
    expect(bridge.tool("mcp_remote_add")).toBeDefined();
    await first.close();
    await until(() => bridge.server("remote")?.state === "failed", 15_000);
    expect(bridge.tool("mcp_remote_add")).toBeUndefined();
    await using _second = await startHttpFixture("normal", ["--port", port]);
    expect((await bridge.call("mcp_remote_add", { a: 2, b: 2 }, { timeout: 15_000 })).text).toBe("4");
    expect(bridge.server("remote")?.state).toBe("connected");
    // A name no server ever listed is still unknown at once.
    await expect(bridge.call("mcp_remote_nothing", {}, { timeout: 15_000 })).rejects.toMatchObject({
      code: "TOOL_NOT_FOUND",
    });
  }, 60_000);

  it("close() stops the background retries", async () => {
    let requests = 0;
    await using down = await listen((_req, res) => {
      requests++;
      res.writeHead(503).end("down");
    });
    const bridge = await startBridge({
      servers: { remote: { type: "http", url: down.url, restart } },
      env: {},
    });
    await until(() => requests >= 3, 15_000);
    await bridge.close();
    const atClose = requests;
    await sleep(1000);
    expect(requests).toBe(atClose);
  });
});

describe("a hung stdio server", () => {
  it("is found by the default health check and restarted", async () => {
    // No healthCheckInterval on the server: it comes from the setting every server now inherits.
    await using bridge = await startBridge({
      servers: { stuck: stdioEntry("hangs-on-tool") },
      settings: { healthCheckIntervalMs: 300 },
      env: {},
    });
    const pid = bridge.server("stuck")?.pid;
    expect(pid).toBeDefined();
    await expect(bridge.call("stuck/hang", {}, { timeout: 500 })).rejects.toBeDefined();
    await until(() => {
      const status = bridge.server("stuck");
      return status?.state === "connected" && status.pid !== pid;
    }, 20_000);
    expect((await bridge.call("stuck/pid")).text).toBe(String(bridge.server("stuck")?.pid));
  });
});
