import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { ORIGIN_META_KEY } from "../../src/apps/gateway/forwarding/forwarded-tool.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { CLI, cliHome } from "../helpers/cli.js";

// Server names with `_` make exposed names ambiguous (`my_calc_add`: server `my_calc`'s `add`, or
// server `my`'s `calc_add`?): each served tool says where it comes from in `_meta`.
const home = cliHome({ my_calc: stdioEntry("normal"), my: stdioEntry("normal") });

describe("a served tool names its origin in _meta", () => {
  it("serve --stdio: server and original tool name under io.github.mcp-bridge/origin", async () => {
    const client = new Client({ name: "origin-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "serve", "--stdio", "-c", home.config],
        env: home.env,
        cwd: home.home,
        stderr: "pipe",
      }),
    );
    try {
      const tools = (await client.listTools(undefined, { timeout: 60_000 })).tools;
      const origin = (name: string) => tools.find((t) => t.name === name)?._meta?.[ORIGIN_META_KEY];
      expect(ORIGIN_META_KEY).toBe("io.github.mcp-bridge/origin");
      expect(origin("my_calc_add")).toEqual({ server: "my_calc", tool: "add" });
      expect(origin("my_add")).toEqual({ server: "my", tool: "add" });
      for (const tool of tools) expect(tool._meta?.[ORIGIN_META_KEY], tool.name).toBeDefined();
    } finally {
      await client.close();
    }
  }, 60_000);
});
