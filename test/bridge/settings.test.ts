import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { McpBridgeError, startBridge, ToolTimeoutError } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { tempDirs } from "../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-settings-");

/** A config file with one slow server and no timeouts of its own. */
function configFile(settings: Record<string, unknown> = {}): string {
  const file = join(tempDir(), "mcp.json");
  writeFileSync(file, JSON.stringify({ settings, mcpServers: { slow: stdioEntry("slow-tool") } }));
  return file;
}

describe("the settings option", () => {
  it("settings written as in a file reach the file's servers, and a real call times out by them", async () => {
    await using bridge = await startBridge({
      config: configFile({ callTimeout: "30s" }),
      settings: { callTimeout: "1500ms" },
      env: { HOME: tempDir() },
      catalogCache: false,
    });
    expect(bridge.config.settings.callTimeoutMs).toBe(1500);
    expect(bridge.config.servers[0]?.callTimeoutMs).toBe(1500);
    const error = await bridge.call("slow/sleep", { ms: 20_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 1500 });
  });

  it("the resolved names (callTimeoutMs) reach servers loaded from a file", async () => {
    await using bridge = await startBridge({
      config: configFile(),
      settings: { callTimeoutMs: 2500, startupTimeoutMs: 20_000 },
      env: { HOME: tempDir() },
      catalogCache: false,
    });
    expect(bridge.config.servers[0]).toMatchObject({ callTimeoutMs: 2500, startupTimeoutMs: 20_000 });
  });

  it("servers given in code and on the command line get them too", async () => {
    await using bridge = await startBridge({
      servers: { slow: inProcessEntry("slow-tool") },
      extraServers: { extra: inProcessEntry("normal") },
      settings: { call_timeout: 3 },
      env: { HOME: tempDir() },
      catalogCache: false,
    });
    expect(bridge.config.servers.map((server) => [server.name, server.callTimeoutMs])).toEqual([
      ["slow", 3000],
      ["extra", 3000],
    ]);
  });

  it.each([
    [{ callTimeout: "soon" }, /callTimeout/],
    [{ calltimeout: "2s" }, /Unknown setting "calltimeout".*callTimeout/],
    [{ callTimeoutMs: "fast" }, /callTimeoutMs/],
    [{ toolNameFormat: "no-tool-part" }, /toolNameFormat/],
  ])("invalid settings in code are a CONFIG_INVALID error: %o", async (settings, message) => {
    const error = await startBridge({ config: configFile(), settings, env: { HOME: tempDir() } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpBridgeError);
    expect(error).toMatchObject({ code: "CONFIG_INVALID" });
    expect((error as Error).message).toMatch(message);
  });
});
