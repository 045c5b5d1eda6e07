import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import type { Bridge } from "../../src/bridge/api.js";
import { startBridge } from "../../src/bridge/bridge.js";
import { alive, stdioEntry, waitForExit } from "../fixtures/servers/index.js";
import { descendants } from "../helpers/tmux.js";

/** Every wait is bounded: a server that never finishes starting cannot hang start(), status or close(). */

const opened: Bridge[] = [];
const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(opened.map((b) => b.close()));
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

async function start(servers: Record<string, Record<string, unknown>>, wait = true): Promise<Bridge> {
  const bridge = await startBridge({ servers, wait });
  opened.push(bridge);
  return bridge;
}

/** A legacy SSE endpoint that opens the event stream and never sends the `endpoint` event. */
async function sseWithoutEndpoint(): Promise<string> {
  const server = createServer((req, res) => {
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write(": keeping you waiting\n\n");
      return;
    }
    res.writeHead(404).end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/sse`;
}

describe("bounded waits", () => {
  it.each([
    ["a cursor that never ends", []],
    ["two cursors that alternate", ["--alternate"]],
  ])(
    "endless tools/list pagination (%s): start() ends, the server fails with the reason",
    async (_, args) => {
      const bridge = await start({
        endless: stdioEntry(
          "endless-pagination",
          { startupTimeout: "20s", restart: { enabled: false } },
          args,
        ),
        good: stdioEntry("normal"),
      });
      const status = bridge.server("endless");
      expect(status?.state).toBe("failed");
      expect(status?.lastError?.message).toMatch(/endless.*(pages|cursor)/i);
      expect(bridge.server("good")?.state).toBe("connected");
      await bridge.close();
    },
    30_000,
  );

  it("the startup timeout bounds the whole start: an SSE stream that never sends its endpoint", async () => {
    const url = await sseWithoutEndpoint();
    const bridge = await start({
      legacy: { type: "sse", url, startupTimeout: "1s", restart: { enabled: false } },
    });
    expect(bridge.server("legacy")).toMatchObject({
      state: "failed",
      lastError: { code: "SERVER_START_TIMEOUT", message: expect.stringContaining("legacy") },
    });
    await bridge.close();
  }, 20_000);

  it("close() during a start that would hang ends at once and leaves no process", async () => {
    const bridge = await start({ hung: stdioEntry("never-answers", { startupTimeout: "10m" }) }, false);
    const server = () =>
      descendants(process.pid).find((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("never-answers");
        } catch {
          return false;
        }
      });
    await expect.poll(server, { timeout: 5000 }).toBeGreaterThan(0);
    const pid = server() as number;
    expect(alive(pid)).toBe(true);
    await bridge.close();
    expect(await waitForExit([pid], 5000)).toEqual([]);
  }, 20_000);

  it("a server that dies right after every handshake backs off and ends failed with its reason", async () => {
    const bridge = await start({
      flaky: stdioEntry("dies-after-handshake", {
        restart: { initialDelay: "10ms", maxDelay: "40ms", maxAttempts: 3, stablePeriod: "5s" },
      }),
    });
    await expect.poll(() => bridge.server("flaky")?.state, { timeout: 15_000, interval: 100 }).toBe("failed");
    const status = bridge.server("flaky");
    expect(status?.restarts).toBeLessThanOrEqual(3);
    expect(status?.lastError?.message).toMatch(/flaky.*(stopped|exit)/);
  }, 30_000);
});
