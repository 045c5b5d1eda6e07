import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { someListingPending } from "../../src/bridge/servers/servers-settled.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { CLI, cliEnv } from "../helpers/cli.js";
import { tempDirs, until } from "../helpers/wait.js";

/**
 * Most hosts list tools once, right after `initialize`. On a first run (no catalog cache) the servers
 * are still starting then: the first `tools/list` waits for them (bounded by --list-wait).
 */

const tempDir = tempDirs("mcp-bridge-first-list-");

/** A host as the seeds write them: stdlib JSON-RPC over stdio, lists once, prints the names. */
const PYTHON_HOST = `
import json, subprocess, sys
proc = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def send(message):
    proc.stdin.write((json.dumps(message) + "\\n").encode()); proc.stdin.flush()
def answer(id):
    while True:
        message = json.loads(proc.stdout.readline())
        if message.get("id") == id: return message
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
      "capabilities": {}, "clientInfo": {"name": "py-host", "version": "1"}}})
answer(1)
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
print("listing", file=sys.stderr, flush=True)
print(json.dumps([tool["name"] for tool in answer(2)["result"]["tools"]]), flush=True)
proc.stdin.close(); proc.wait(timeout=30)
`;

/** A config whose server answers its handshake only once `gate` exists (so the test decides when). */
function gatedHome() {
  const home = tempDir();
  const gate = join(home, "gate");
  const config = join(home, "mcp.json");
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { slow: stdioEntry("slow-start", {}, ["--until-file", gate]) } }),
  );
  return { home, gate, config };
}

describe("the first tools/list is not empty", () => {
  it("a Python host that lists once, right after initialize, gets the tools of a server still starting", async () => {
    const { home, gate, config } = gatedHome();
    writeFileSync(join(home, "host.py"), PYTHON_HOST);
    // A long bound: the test opens the gate only once the listing is asked.
    const args = ["host.py", process.execPath, CLI, "serve", "--stdio", "--list-wait", "60s", "-c", config];
    const child = spawn("python3", args, { cwd: home, env: cliEnv(home) });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    try {
      await until(() => stderr.includes("listing") || child.exitCode !== null, 30_000);
      writeFileSync(gate, "");
      expect(await exited, stderr).toBe(0);
      expect(JSON.parse(stdout.trim())).toEqual(["slow_add"]);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 60_000);

  it("with the SDK client; a server hanging at its handshake delays the answer no longer than --list-wait", async () => {
    const home = tempDir();
    const config = join(home, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          normal: stdioEntry("normal"),
          hang: stdioEntry("never-answers", { startupTimeout: "120s" }),
        },
      }),
    );
    const client = new Client({ name: "first-list-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "serve", "--stdio", "--list-wait", "1s", "--admin-tools", "-c", config],
        env: cliEnv(home),
        cwd: home,
        stderr: "pipe",
      }),
    );
    try {
      // Answered while `hang` still connects (its start timeout is 120 s).
      const names = (await client.listTools(undefined, { timeout: 60_000 })).tools.map((t) => t.name);
      expect(names).toContain("mcp_bridge_admin_status");
      const status = await client.callTool({ name: "mcp_bridge_admin_status", arguments: {} });
      const text = (status.content as { text: string }[])[0]?.text ?? "{}";
      const hang = (JSON.parse(text) as { servers: { name: string; state: string }[] }).servers.find(
        (s) => s.name === "hang",
      );
      expect(hang?.state).toBe("connecting");
    } finally {
      await client.close();
    }
  }, 90_000);

  it("a server listed from the catalog cache is not waited for", () => {
    const servers = (list: { state: string; catalog?: "cache" }[]) => ({
      servers: () => list as never,
    });
    expect(someListingPending(servers([{ state: "connecting" }]))).toBe(true);
    expect(someListingPending(servers([{ state: "connecting", catalog: "cache" }]))).toBe(false);
    expect(someListingPending(servers([{ state: "connected" }, { state: "failed" }]))).toBe(false);
  });
});
