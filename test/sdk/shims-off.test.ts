/**
 * The suite's core cases with every SDK shim turned off (src/sdk/shims.ts): the public path each shim
 * falls back to when the SDK changed under it must work on its own. The contract suite over the four
 * transports, plus cancellation, a reconnect and a gateway's 2026-07-28 call.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway } from "../../src/apps/gateway/index.js";
import { SessionClient } from "../../src/connection/session-client.js";
import { startBridge } from "../../src/index.js";
import { keepAliveFetch } from "../../src/sdk/keepalive-fetch.js";
import { modernAnswerEnabled } from "../../src/sdk/modern-answer.js";
import { SDK_SHIMS, sdkShimEnabled, setSdkShims } from "../../src/sdk/shims.js";
import { IdTable } from "../../src/util/id-table.js";
import { startHttpFixture, stdioEntry } from "../fixtures/servers/index.js";
import { freePort } from "../helpers/redis-server.js";
import { describeContract } from "../transport/contract/contract.case.js";
import {
  legacySse,
  stdio,
  streamableHttpSessions,
  streamableHttpStateless,
} from "../transport/contract/transports.js";

// Before any client, server or transport of this file exists: each reads the switch when it is made.
setSdkShims(false);
afterAll(() => setSdkShims(undefined));

describe("with every SDK shim off", () => {
  it("uses none: the SDK's own tables, dispatch, fetch and answers", () => {
    for (const shim of SDK_SHIMS) expect(sdkShimEnabled(shim)).toBe(false);
    const client = new SessionClient({ name: "t", version: "1" }) as unknown as Record<string, unknown>;
    expect(client._responseHandlers).toBeInstanceOf(Map);
    expect(client._responseHandlers).not.toBeInstanceOf(IdTable);
    const fallback = async () => new Response("x");
    expect(keepAliveFetch(fallback, { settleBytes: 1024 })).toBe(fallback);
    expect(modernAnswerEnabled()).toBe(false);
  });
});

describeContract(stdio);
describeContract(streamableHttpSessions);
describeContract(streamableHttpStateless);
describeContract(legacySse);

describe("calls with every SDK shim off", () => {
  let bridge: Awaited<ReturnType<typeof startBridge>>;
  beforeAll(async () => {
    bridge = await startBridge({ servers: { slow: stdioEntry("slow-tool") } });
  });
  afterAll(() => bridge.close());
  const cancelledCount = async () => Number((await bridge.call("slow/cancelled")).text);

  it("times out a call and cancels it on the server", async () => {
    const before = await cancelledCount();
    const error = await bridge.call("slow/sleep", { ms: 10_000 }, { timeout: 300 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "TOOL_TIMEOUT", server: "slow", tool: "sleep" });
    await expect.poll(cancelledCount, { timeout: 10_000 }).toBe(before + 1);
  });

  it("aborts a call through the caller's signal once the server has it in hand", async () => {
    const controller = new AbortController();
    const call = bridge.call(
      "slow/progress",
      { steps: 1000, intervalMs: 20 },
      // The first progress notification says the server is running the call.
      { signal: controller.signal, onProgress: () => controller.abort() },
    );
    await expect(call).rejects.toMatchObject({ code: "ABORTED", tool: "progress" });
    // The connection serves on after the cancellation.
    expect((await bridge.call("slow/max_active")).text).toMatch(/^\d+$/);
  });

  it("reconnects a remote server that came up after the bridge started, on the next call", async () => {
    const port = await freePort();
    const slow = { initialDelay: "5m", maxDelay: "5m", retryCeiling: "5m" };
    await using remote = await startBridge({
      servers: { remote: { type: "http", url: `http://127.0.0.1:${port}/mcp`, restart: slow } },
      env: {},
    });
    expect(remote.server("remote")?.state).toBe("failed");
    await using _server = await startHttpFixture("normal", ["--port", String(port)]);
    expect((await remote.call("remote/add", { a: 1, b: 1 }, { timeout: 15_000 })).text).toBe("2");
    expect(remote.server("remote")?.state).toBe("connected");
  });
});

describe("a gateway with every SDK shim off", () => {
  it("answers a stateless 2026-07-28 call through the SDK's path", async () => {
    await using bridge = await startBridge({ servers: { normal: stdioEntry("normal") } });
    await bridge.ready();
    const gateway = await startGateway({ bridge, tokens: [{ token: "t", client: "c" }], fastPath: true });
    try {
      const revision = "2026-07-28";
      const response = await fetch(gateway.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: "Bearer t",
          "mcp-protocol-version": revision,
          "mcp-method": "tools/call",
          "mcp-name": "mcp_normal_echo",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "mcp_normal_echo",
            arguments: { text: "hi" },
            _meta: {
              "io.modelcontextprotocol/protocolVersion": revision,
              "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
              "io.modelcontextprotocol/clientCapabilities": {},
            },
          },
        }),
      });
      // The fast path's JSON answer has a Content-Length; the SDK path's has none.
      expect(response.headers.get("content-length")).toBeNull();
      expect(await response.text()).toContain("hi");
    } finally {
      await gateway.close();
    }
  });
});
