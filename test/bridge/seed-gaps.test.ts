import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { McpBridgeError, startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { capturingLogger, tempDirs } from "../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-seed-gaps-");

describe("seed-level gaps", () => {
  it("a tool whose input schema is not an object schema is skipped with a warning, never exported", async () => {
    const { logger, messages } = capturingLogger();
    await using bridge = await startBridge({
      servers: { broken: stdioEntry("malformed-tools", {}, ["--count", "2"]) },
      logger,
      catalogCache: false,
    });
    const names = bridge.tools().map((tool) => tool.tool);
    expect(names).not.toContain("string_schema");
    expect(names).not.toContain("anyof_schema");
    expect(names).toContain("good_1");
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /"broken": skipped tool "string_schema": its inputSchema is not an object schema/,
        ),
        expect.stringMatching(
          /"broken": skipped tool "anyof_schema": its inputSchema is not an object schema/,
        ),
      ]),
    );
    for (const tool of bridge.tools()) expect(tool.inputSchema.type ?? "object").toBe("object");
  });

  it("timeout: 0 is a config error: the server is skipped saying why; in code, CONFIG_INVALID", async () => {
    const file = join(tempDir(), "mcp.json");
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: { zero: stdioEntry("normal", { timeout: 0 }), fine: stdioEntry("normal") },
      }),
    );
    await using bridge = await startBridge({ config: file, env: { HOME: tempDir() }, catalogCache: false });
    expect(bridge.config.servers.map((server) => server.name)).toEqual(["fine"]);
    expect(bridge.config.skipped[0]).toMatchObject({
      name: "zero",
      reason: expect.stringMatching(/"timeout" must be more than 0/),
    });
    const error = await startBridge({ servers: {}, settings: { callTimeout: 0 } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "CONFIG_INVALID" });
  });

  it("tools() and searchTools() after close() throw BRIDGE_CLOSED, as call does", async () => {
    const bridge = await startBridge({ servers: { calc: inProcessEntry("normal") }, catalogCache: false });
    expect(bridge.tools().length).toBeGreaterThan(0);
    await bridge.close();
    for (const attempt of [() => bridge.tools(), () => bridge.searchTools("add")]) {
      expect(attempt).toThrow(McpBridgeError);
      try {
        attempt();
      } catch (error) {
        expect(error).toMatchObject({ code: "BRIDGE_CLOSED" });
      }
    }
    await expect(bridge.call("mcp_calc_add", { a: 1, b: 2 })).rejects.toMatchObject({
      code: "BRIDGE_CLOSED",
    });
  });

  it("every public method of the bridge after close() throws or rejects with BRIDGE_CLOSED", async () => {
    const bridge = await startBridge({ servers: { calc: inProcessEntry("normal") }, catalogCache: false });
    expect(bridge.tool("mcp_calc_add")).toBeDefined();
    await bridge.close();
    const attempts: Record<string, () => unknown> = {
      tools: () => bridge.tools(),
      searchTools: () => bridge.searchTools("add"),
      tool: () => bridge.tool("mcp_calc_add"),
      resolve: () => bridge.resolve("mcp_calc_add"),
      call: () => bridge.call("mcp_calc_add", { a: 1, b: 2 }),
      resources: () => bridge.resources(),
      resourceTemplates: () => bridge.resourceTemplates(),
      readResource: () => bridge.readResource("file:///x"),
      subscribe: () => bridge.subscribe("file:///x", () => {}),
      prompts: () => bridge.prompts(),
      getPrompt: () => bridge.getPrompt("calc/anything"),
      complete: () => bridge.complete({ type: "prompt", name: "calc/anything" }, { name: "a", value: "" }),
      skills: () => bridge.skills(),
      loadSkill: () => bridge.loadSkill("anything"),
      setRoots: () => bridge.setRoots(["/tmp"]),
      refreshTools: () => bridge.refreshTools(),
      reload: () => bridge.reload(),
      restart: () => bridge.restart("calc"),
    };
    const codes: Record<string, unknown> = {};
    for (const [name, attempt] of Object.entries(attempts)) {
      try {
        await attempt();
        codes[name] = "answered";
      } catch (error) {
        codes[name] = error instanceof McpBridgeError ? error.code : String(error);
      }
    }
    expect(codes).toEqual(Object.fromEntries(Object.keys(attempts).map((name) => [name, "BRIDGE_CLOSED"])));
  });

  it("[[mcp_servers]] arrays of tables (Codex style, with name) are recognized", async () => {
    const file = join(tempDir(), "config.toml");
    const entry = stdioEntry("normal");
    writeFileSync(
      file,
      `[[mcp_servers]]\nname = "calc"\ncommand = ${JSON.stringify(entry.command)}\nargs = ${JSON.stringify(entry.args)}\n`,
    );
    const { logger, messages } = capturingLogger();
    await using bridge = await startBridge({
      config: file,
      env: { HOME: tempDir() },
      logger,
      catalogCache: false,
    });
    expect(bridge.config.warnings).toEqual([]);
    expect(bridge.server("calc")?.state).toBe("connected");
    expect(messages.filter((message) => message.includes("section"))).toEqual([]);
  });

  it("refreshTools(server?) lists again on demand, for a server that never announces changes", async () => {
    const toolsFile = join(tempDir(), "tools.txt");
    writeFileSync(toolsFile, "alpha");
    await using bridge = await startBridge({
      servers: { quiet: stdioEntry("silent-tool-changes", {}, ["--tools-file", toolsFile]) },
      catalogCache: false,
    });
    expect(bridge.tools().map((tool) => tool.tool)).toEqual(["alpha"]);
    writeFileSync(toolsFile, "alpha,beta");
    const changed: string[][] = [];
    bridge.on("toolsChanged", (event) => changed.push(event.tools.map((tool) => tool.tool)));
    await bridge.refreshTools("quiet");
    expect(bridge.tools().map((tool) => tool.tool)).toEqual(["alpha", "beta"]);
    expect(changed).toEqual([["alpha", "beta"]]);
    writeFileSync(toolsFile, "gamma");
    await bridge.refreshTools();
    expect(bridge.tools().map((tool) => tool.tool)).toEqual(["gamma"]);
    await expect(bridge.refreshTools("nope")).rejects.toMatchObject({ code: "SERVER_NOT_FOUND" });
  });
});
