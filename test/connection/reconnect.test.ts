import { InMemoryTransport } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as z from "zod";
import type { ServerDefinition } from "../../src/config/model.js";
import { createConnection, type ServerConnection } from "../../src/connection/connection.js";
import type { ServerState } from "../../src/connection/server-status.js";
import type { CreatedTransport, TransportFactory } from "../../src/transport/create.js";
import { silentLogger } from "../../src/util/logger.js";

/**
 * The state machine, reconnects and backoff against the SDK's InMemoryTransport and a real SDK
 * server, with fake timers: no process, no network, no waiting on the wall clock.
 */

function definition(restart: Partial<ServerDefinition["restart"]> = {}): ServerDefinition {
  return {
    name: "mem",
    transport: "stdio",
    command: "unused",
    args: [],
    env: {},
    inheritEnv: [],
    enabled: true,
    required: false,
    startupTimeoutMs: 5_000,
    callTimeoutMs: 5_000,
    tools: { include: [], exclude: [] },
    lazy: false,
    restart: {
      enabled: true,
      maxAttempts: 3,
      initialDelayMs: 100,
      maxDelayMs: 10_000,
      stablePeriodMs: 5_000,
      ...restart,
    },
    healthCheckIntervalMs: 0,
    negotiation: "legacy",
  } as unknown as ServerDefinition;
}

/** A transport factory serving an in-memory SDK server; `kill()` drops the live one as a crash would. */
function inMemoryServers() {
  const live: InMemoryTransport[] = [];
  let opened = 0;
  const factory: TransportFactory = (): CreatedTransport => {
    const [client, server] = InMemoryTransport.createLinkedPair();
    const mcp = new McpServer({ name: "mem", version: "1.0.0" });
    mcp.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
      content: [{ type: "text", text }],
    }));
    void mcp.connect(server);
    live.push(server);
    opened++;
    return { transport: client };
  };
  return {
    factory,
    opened: () => opened,
    kill: async () => {
      await live.pop()?.close();
    },
  };
}

const connections: ServerConnection[] = [];

function connect(def: ServerDefinition, factory: TransportFactory) {
  const connection = createConnection(def, {
    logger: silentLogger,
    clientInfo: { name: "test", version: "0" },
    redact: (text) => text,
    random: () => 1,
    createTransport: factory,
  });
  connections.push(connection);
  const states: { state: ServerState; at: number }[] = [];
  connection.on("stateChanged", (status) => states.push({ state: status.state, at: Date.now() }));
  return { connection, states };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
});
afterEach(async () => {
  await Promise.all(connections.splice(0).map((c) => c.close()));
  vi.useRealTimers();
});

describe("Connection over InMemoryTransport", () => {
  it("connects, lists tools and calls one", async () => {
    const servers = inMemoryServers();
    const { connection } = connect(definition(), servers.factory);
    await connection.start();
    expect(connection.status().state).toBe("connected");
    expect(connection.tools().map((tool) => tool.name)).toEqual(["echo"]);
    const result = await connection.callTool("echo", { text: "hi" }, { timeoutMs: 1_000 });
    expect(result.content).toEqual([{ type: "text", text: "hi" }]);
  });

  it("reconnects after a crash once the backoff delay has passed", async () => {
    const servers = inMemoryServers();
    const { connection, states } = connect(definition(), servers.factory);
    await connection.start();
    await servers.kill();
    expect(connection.status().state).toBe("reconnecting");
    expect(connection.status().lastError?.code).toBe("SERVER_CRASHED");
    await vi.advanceTimersByTimeAsync(99);
    expect(servers.opened()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(connection.status().state).toBe("connected");
    expect(connection.status().restarts).toBe(1);
    expect(states.map((s) => s.state)).toEqual(["connecting", "connected", "reconnecting", "connected"]);
  });

  it("a server that dies right after each handshake backs off, doubling, and ends failed", async () => {
    const servers = inMemoryServers();
    const { connection, states } = connect(definition({ maxAttempts: 3 }), servers.factory);
    await connection.start();
    // Each restart lives 1 s, less than the 5 s stable period, so none counts as recovered.
    for (let round = 0; round < 3; round++) {
      await servers.kill();
      await vi.advanceTimersByTimeAsync(1_000);
      expect(connection.status().state).toBe("connected");
    }
    await servers.kill();
    expect(connection.status().state).toBe("failed");
    expect(connection.status().lastError?.message).toMatch(/stopped unexpectedly/);
    const reconnectsAt = states.filter((s) => s.state === "reconnecting").map((s) => s.at);
    const connectedAt = states.filter((s) => s.state === "connected").map((s) => s.at);
    // With jitter pinned (random = 1) each delay is the nominal one: 100, 200, 400 ms.
    const delays = reconnectsAt.map((at, index) => (connectedAt[index + 1] ?? at) - at);
    expect(delays).toEqual([100, 200, 400]);
  });

  it("a server that stayed up for the stable period starts the backoff over", async () => {
    const servers = inMemoryServers();
    const { connection, states } = connect(definition({ maxAttempts: 2 }), servers.factory);
    await connection.start();
    for (let round = 0; round < 4; round++) {
      await servers.kill();
      await vi.advanceTimersByTimeAsync(100);
      expect(connection.status().state).toBe("connected");
      await vi.advanceTimersByTimeAsync(5_000);
    }
    expect(connection.status().restarts).toBe(4);
    expect(states.some((s) => s.state === "failed")).toBe(false);
  });

  it("a call waits for the reconnect instead of failing", async () => {
    const servers = inMemoryServers();
    const { connection } = connect(definition(), servers.factory);
    await connection.start();
    await servers.kill();
    const call = connection.callTool("echo", { text: "later" }, { timeoutMs: 2_000 });
    await vi.advanceTimersByTimeAsync(100);
    await expect(call).resolves.toMatchObject({ content: [{ type: "text", text: "later" }] });
  });

  it("close() ends a pending reconnect: no attempt after close, state closed", async () => {
    const servers = inMemoryServers();
    const { connection } = connect(definition(), servers.factory);
    await connection.start();
    await servers.kill();
    await connection.close();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(servers.opened()).toBe(1);
    expect(connection.status().state).toBe("closed");
  });
});
