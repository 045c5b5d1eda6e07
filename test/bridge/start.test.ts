import { describe, expect, it } from "vitest";
import { loadConfig, McpBridgeError, startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";

describe("start", () => {
  it("wait: false: a call to a tool of a server still connecting waits for it", async () => {
    await using bridge = await startBridge({
      servers: { slow: stdioEntry("slow-start", {}, ["--delay", "400"]) },
      wait: false,
    });
    expect(bridge.server("slow")?.state).toBe("connecting");
    const result = await bridge.call("mcp_slow_add", { a: 2, b: 3 }, { timeout: 10_000 });
    expect(result.text).toBe("5");
  });

  it("wait: false: an unknown tool is reported once the connecting servers are done, naming them", async () => {
    await using bridge = await startBridge({
      servers: {
        slow: stdioEntry("slow-start", {}, ["--delay", "300"]),
        broken: stdioEntry("exits-at-start"),
      },
      wait: false,
    });
    const error = await bridge.call("mcp_broken_anything", {}, { timeout: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpBridgeError);
    expect(error).toMatchObject({ code: "TOOL_NOT_FOUND" });
    expect((error as Error).message).toMatch(/"broken" failed/);
    expect(bridge.server("slow")?.state).toBe("connected");
  });

  it("wait: false: a call whose timeout ends while servers still connect says they are connecting", async () => {
    await using bridge = await startBridge({
      servers: { slow: stdioEntry("slow-start", {}, ["--delay", "3000"]) },
      wait: false,
    });
    const error = await bridge
      .call("mcp_slow_add", { a: 1, b: 1 }, { timeout: 200 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpBridgeError);
    expect((error as Error).message).toMatch(/"slow" is still connecting/);
  });

  it("oauth settings that lack what their grant needs are a config problem raised while loading, not at connect time", async () => {
    await using bridge = await startBridge({
      servers: {
        remote: { type: "http", url: "http://127.0.0.1:1/mcp", oauth: { grant: "client_credentials" } },
        local: stdioEntry("normal"),
      },
      env: {},
    });
    const status = bridge.server("remote");
    // Skipped like any invalid entry: CONFIG_INVALID naming the missing setting, never tried.
    expect(status?.state).toBe("invalid");
    expect(status?.lastError?.code).toBe("CONFIG_INVALID");
    expect(status?.lastError?.message).toMatch(/oauth\.clientId/);
    expect(status?.restarts).toBe(0);
    expect(bridge.server("local")?.state).toBe("connected");
    const error = await bridge.call("remote/anything").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpBridgeError);
  });

  it("each grant's required oauth settings are checked while loading (jwt_bearer, cross_app_access)", async () => {
    const config = await loadConfig({
      servers: {
        jwt: {
          type: "http",
          url: "http://127.0.0.1:1/mcp",
          required: true,
          oauth: { grant: "jwt_bearer", clientId: "c" },
        },
        xaa: {
          type: "http",
          url: "http://127.0.0.1:1/mcp",
          oauth: { grant: "cross_app_access", clientId: "c" },
        },
        code: { type: "http", url: "http://127.0.0.1:1/mcp", oauth: { clientId: "c" } },
      },
      env: {},
    });
    expect(config.servers.map((server) => server.name)).toEqual(["code"]);
    expect(config.skipped.map(({ name, field }) => ({ name, field }))).toEqual([
      { name: "jwt", field: "oauth.assertion" },
      { name: "xaa", field: "oauth.idp" },
    ]);
    expect(config.warnings.map((warning) => warning.kind)).toEqual(["invalid-entry", "invalid-entry"]);
  });
});
