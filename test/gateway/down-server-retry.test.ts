import { describe, expect, it } from "vitest";
import { startGateway } from "../../src/apps/gateway/index.js";
import { startBridge } from "../../src/index.js";
import { startHttpFixture } from "../fixtures/servers/index.js";
import { until } from "../helpers/wait.js";
import { connect, textOf } from "./client.js";

/**
 * A remote server that was down and is back: a client's call of one of its tools tries it again at
 * once, as a library call does, instead of failing until the background retry (minutes later).
 */

describe("a call through the gateway for a tool of a server that went down", () => {
  it("reconnects the server at once when it is back, and says it is down when it is not", async () => {
    const first = await startHttpFixture("normal");
    const port = new URL(first.url).port;
    // Quick attempts used up within a second; the background retry would come only minutes later.
    const restart = { initialDelay: "50ms", maxDelay: "100ms", maxAttempts: 2, retryCeiling: "5m" };
    await using bridge = await startBridge({
      servers: { remote: { type: "http", url: first.url, restart, startTimeout: "5s" } },
      env: {},
    });
    const gateway = await startGateway({ bridge, port: 0 });
    try {
      await using client = await connect(gateway.url, "2025-11-25", undefined);
      expect(textOf(await client.callTool({ name: "mcp_remote_add", arguments: { a: 1, b: 1 } }))).toBe("2");
      await first.close();
      await until(() => bridge.server("remote")?.state === "failed", 15_000);
      // Still down: tried again, and the answer says so.
      const down = await client.callTool({ name: "mcp_remote_add", arguments: { a: 1, b: 2 } });
      expect(down.isError).toBe(true);
      expect(textOf(down)).toMatch(/server "remote" is failed/);
      await using _second = await startHttpFixture("normal", ["--port", port]);
      const back = await client.callTool(
        { name: "mcp_remote_add", arguments: { a: 2, b: 2 } },
        { timeout: 20_000 },
      );
      expect(textOf(back)).toBe("4");
      expect(bridge.server("remote")?.state).toBe("connected");
    } finally {
      await gateway.close();
    }
  }, 60_000);
});
