import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { CLI, cliHome } from "../helpers/cli.js";
import { until } from "../helpers/wait.js";

// The process is the subject: `serve` as a host runs it, with its flags and its stderr.
const home = cliHome({
  calc: { ...stdioEntry("normal"), tags: ["math"] },
  other: { ...stdioEntry("normal"), tags: ["misc"] },
});

describe("serve --tag and serve -v", () => {
  it("serves only the tagged servers' tools, and -v says each connect and the total", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "--stdio", "--tag", "math", "-v", "-c", home.config],
      env: home.env,
      cwd: home.home,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: "tag-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const tools = (await client.listTools(undefined, { timeout: 60_000 })).tools;
      expect(tools.length).toBeGreaterThan(0);
      expect(tools.map((tool) => tool.name).sort()).toEqual(
        ["add", "divide", "echo", "env", "greet", "pid"].map((tool) => `calc_${tool}`),
      );
      // stderr is its own pipe: its lines may arrive after the listing's answer.
      await until(() => stderr.includes("servers connected"), 30_000);
      expect(stderr).toMatch(/Server "calc" connected with 6 tools/);
      expect(stderr).toMatch(/1 of 1 servers connected, 6 tools in all/);
      expect(stderr).not.toContain('"other"');
    } finally {
      await client.close();
    }
  }, 60_000);
});
