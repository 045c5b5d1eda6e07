import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { cliEnv, emptyHome, runCli } from "../helpers/cli.js";

const home = emptyHome();
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("catalog cache: CLI", () => {
  it("`tools` lists a server's cached tools without waiting for it to answer", async () => {
    const env = cliEnv(home);
    const gate = join(home, "gate");
    const toolsFile = join(home, "tools.txt");
    writeFileSync(toolsFile, "alpha,beta");
    writeFileSync(gate, "");
    const config = join(home, "servers.json");
    // The gate stays closed during the second run: only a CLI that does not wait for the server ends
    // (runCli gives up after 10 s; the server would wait 20 s for its gate).
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          s: stdioEntry("catalog", {}, ["--tools-file", toolsFile, "--gate", gate]),
        },
      }),
    );
    const first = await runCli(["tools", "--config", config, "--json"], { cwd: home, env });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).tools.map((t: { name: string }) => t.name)).toEqual([
      "mcp_s_alpha",
      "mcp_s_beta",
    ]);

    rmSync(gate);
    const cached = await runCli(["tools", "--config", config, "--json"], {
      cwd: home,
      env,
      timeoutMs: 10_000,
    });
    expect(cached.code).toBe(0);
    expect(JSON.parse(cached.stdout).tools.map((t: { name: string }) => t.name)).toEqual([
      "mcp_s_alpha",
      "mcp_s_beta",
    ]);
  });
});
