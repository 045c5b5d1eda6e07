import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { attachSession } from "../helpers/attach-client.js";
import { cliEnv, emptyHome, runCli } from "../helpers/cli.js";
import { tempDirs } from "../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-attach-example-");

// docs/other-languages.md: a host attaches with `mcp-bridge attach` on a fresh machine, no config
// anywhere, and calls the bundled example calculator, as every other command would use it.
describe("attach with no config anywhere", () => {
  it("serves the bundled example servers through their daemon, saying so on stderr", async () => {
    const home = emptyHome();
    // A runtime folder of its own, so the daemon attach starts is this test's alone.
    const env = cliEnv(home, { XDG_RUNTIME_DIR: tempDir() });
    const session = attachSession([], { cwd: home, env });
    try {
      await session.initialize();
      const list = async () =>
        (((await session.request("tools/list", {}, 60_000)).result?.tools ?? []) as { name: string }[]).map(
          (tool) => tool.name,
        );
      let names = await list();
      if (names.length === 0) {
        // A first run may answer before the servers connected; the change is announced.
        const changed = () =>
          session.notifications.some((n) => n.method === "notifications/tools/list_changed");
        await session.until(changed, "tools/list_changed", 60_000);
        names = await list();
      }
      expect(
        names.some((name) => name.includes("add")),
        JSON.stringify(names),
      ).toBe(true);
      expect(session.stderr()).toContain("No config found; using the bundled example servers");
    } finally {
      await session.close();
      const stopped = await runCli(["daemon", "stop", "--config", resolve("examples/mcp.json")], {
        cwd: home,
        env,
      });
      expect(stopped.code, `${stopped.stdout}${stopped.stderr}`).toBe(0);
    }
  }, 120_000);

  it("still refuses when another host's config exists (its servers are meant, not the examples)", async () => {
    const home = mkdtempSync(join(tmpdir(), "mcp-bridge-attach-host-"));
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(home, ".claude.json"), JSON.stringify({ mcpServers: {} }));
    const env = cliEnv(home, { XDG_RUNTIME_DIR: tempDir() });
    const session = attachSession([], { cwd: home, env });
    const code = await session.close();
    expect(code).toBe(2);
    expect(session.stderr()).toContain("No config file to run a daemon for");
  }, 60_000);
});
