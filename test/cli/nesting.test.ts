import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { childEnvironment } from "../../src/transport/child-environment.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { CLI, cliEnv, runCli } from "../helpers/cli.js";
import { tempDirs, until } from "../helpers/wait.js";

const emptyHome = tempDirs("mcp-bridge-nesting-");

/**
 * A config entry that reaches the bridge through something the config check cannot see (here a
 * wrapper script, in life a shell script or another bridge's config): the run-time marker stops it.
 */
function loopingHome() {
  const home = emptyHome();
  const wrapper = join(home, "wrapper.mjs");
  writeFileSync(wrapper, `await import(${JSON.stringify(new URL(`file://${CLI}`).href)});\n`);
  const config = join(home, "mcp.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        normal: stdioEntry("normal"),
        loop: { command: process.execPath, args: [wrapper, "serve", "--stdio", "-c", config] },
      },
    }),
  );
  return { home, config };
}

describe("the bridge never nests in itself at run time", () => {
  it.each([
    [["serve", "--stdio"], "serve"],
    [["attach"], "attach"],
    [["daemon", "run"], "daemon run"],
  ])("`%s` started under a bridge refuses with exit 2, naming the outer bridge", async (args, command) => {
    const { home, config } = loopingHome();
    const run = await runCli([...args, "-c", config], {
      cwd: home,
      env: cliEnv(home, { MCP_BRIDGE_SERVING: "4242" }),
    });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`mcp-bridge ${command} was started by another mcp-bridge (process 4242`);
  });

  it("a stdio server gets the marker whatever its inheritEnv", () => {
    const host = { MCP_BRIDGE_SERVING: "77", OTHER: "x" };
    expect(childEnvironment({}, false, host).env.MCP_BRIDGE_SERVING).toBe("77");
    expect(childEnvironment({}, false, { OTHER: "x" }).env.MCP_BRIDGE_SERVING).toBeUndefined();
  });

  it("serve --stdio whose config reaches itself serves the other servers; the nested one fails", async () => {
    const { home, config } = loopingHome();
    const client = new Client({ name: "nesting-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "serve", "--stdio", "--admin-tools", "-c", config],
        env: cliEnv(home),
        cwd: home,
        stderr: "pipe",
      }),
    );
    try {
      type Row = { name: string; state: string; error?: { message: string } | null };
      let rows: Row[] = [];
      await until(async () => {
        const result = await client.callTool({ name: "mcp_bridge_admin_status", arguments: {} });
        const text = (result.content as { type: string; text: string }[])[0]?.text ?? "{}";
        rows = (JSON.parse(text) as { servers: Row[] }).servers;
        return rows.every((row) => row.state !== "connecting" && row.state !== "starting");
      }, 30_000);
      expect(rows.find((row) => row.name === "normal")?.state).toBe("connected");
      const loop = rows.find((row) => row.name === "loop");
      expect(loop?.state).not.toBe("connected");
      expect(JSON.stringify(loop)).toContain("was started by another mcp-bridge");
    } finally {
      await client.close();
    }
  }, 60_000);
});
