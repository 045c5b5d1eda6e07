import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startBridge } from "../../../src/index.js";
import { fixturePath, stdioEntry } from "../../fixtures/servers/index.js";
import { CLI, cliHome, runCli } from "../../helpers/cli.js";

const bwrap = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].find((path) => existsSync(path));
const skip =
  process.platform !== "linux" ? "sandbox tests need Linux" : bwrap ? undefined : "bwrap is not installed";
if (skip) console.log(`skipped: ${skip}`);

/** Pids of live processes whose command line holds `marker`. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(join("/proc", entry, "cmdline"), "utf8");
      if (cmdline.includes(marker)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe.skipIf(skip !== undefined)("sandboxed server lifecycle", () => {
  it("a missing bwrap is an error naming the server, and nothing is started unsandboxed", async () => {
    const marker = `--marker-${randomUUID()}`;
    await using bridge = await startBridge({
      // No bwrap on this PATH (the server's command is absolute, so only bwrap is missing).
      env: { ...process.env, PATH: "/nonexistent" },
      servers: {
        probe: {
          ...stdioEntry("probe-server", { sandbox: true, restart: false }),
          args: [fixturePath("probe-server"), marker],
        },
      },
    });
    const status = bridge.server("probe");
    expect(status?.state).toBe("failed");
    expect(status?.lastError?.code).toBe("SERVER_START_FAILED");
    expect(status?.lastError?.message).toMatch(
      /Server "probe" .*bwrap was not found.*install bubblewrap.*"sandbox": false/,
    );
    expect(processesWith(marker)).toEqual([]);
  });

  it("bwrap unable to set up a sandbox is an error quoting it, naming the server", async () => {
    const marker = `--marker-${randomUUID()}`;
    // A bwrap that fails as one does where user namespaces are disabled.
    const folder = mkdtempSync(join(tmpdir(), "mcp-bridge-fake-bwrap-"));
    const fake = join(folder, "bwrap");
    writeFileSync(
      fake,
      `#!${process.execPath}\nprocess.stderr.write("bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.\\n");\nprocess.exit(1);\n`,
    );
    chmodSync(fake, 0o755);
    await using bridge = await startBridge({
      env: { ...process.env, PATH: `${folder}:${process.env.PATH ?? ""}` },
      servers: {
        probe: {
          ...stdioEntry("probe-server", { sandbox: true, restart: false }),
          args: [fixturePath("probe-server"), marker],
        },
      },
    });
    await bridge.ready();
    const status = bridge.server("probe");
    expect(status?.state).toBe("failed");
    expect(status?.lastError?.code).toBe("SERVER_START_FAILED");
    expect(status?.lastError?.message).toMatch(
      /Server "probe": bubblewrap could not set up its sandbox \(No permissions to create new namespace.*"sandbox": false/,
    );
    expect(processesWith(marker)).toEqual([]);
  });

  it("the sandboxed server dies with its host when the host is killed with SIGKILL", async () => {
    const marker = `--marker-${randomUUID()}`;
    const built = join(process.cwd(), "dist/src/index.js");
    const script = `
      import { startBridge } from ${JSON.stringify(built)};
      const bridge = await startBridge({ servers: { probe: {
        command: process.execPath, args: [${JSON.stringify(fixturePath("probe-server"))}, ${JSON.stringify(marker)}], sandbox: true,
      } } });
      console.log(bridge.server("probe").state);
      setInterval(() => {}, 1000);`;
    const host = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      const state = await new Promise<string>((resolve, reject) => {
        host.stdout.setEncoding("utf8").once("data", (text: string) => resolve(text.trim()));
        host.once("exit", (code) => reject(new Error(`host exited with ${code}`)));
      });
      expect(state).toBe("connected");
      // bwrap and the server inside it (node running the probe) both carry the marker.
      expect(processesWith(marker).length).toBeGreaterThanOrEqual(2);
      host.kill("SIGKILL");
      await expect.poll(() => processesWith(marker), { timeout: 15_000, interval: 100 }).toEqual([]);
    } finally {
      host.kill("SIGKILL");
      for (const pid of processesWith(marker)) process.kill(pid, "SIGKILL");
    }
  }, 90_000);

  it("`mcp-bridge status` shows which servers are sandboxed, as text and JSON", async () => {
    const { home, env, config } = cliHome({
      boxed: stdioEntry("probe-server", { sandbox: true }),
      open: stdioEntry("probe-server"),
    });
    const json = await runCli(["status", "--json", "-c", config], { cwd: home, env, timeoutMs: 60_000 });
    expect(json.code, json.stderr).toBe(0);
    const servers = (
      JSON.parse(json.stdout) as { servers: { name: string; sandboxed: boolean; state: string }[] }
    ).servers;
    expect(servers.map(({ name, sandboxed, state }) => ({ name, sandboxed, state }))).toEqual([
      { name: "boxed", sandboxed: true, state: "connected" },
      { name: "open", sandboxed: false, state: "connected" },
    ]);
    const text = await runCli(["status", "-c", config], { cwd: home, env, timeoutMs: 60_000 });
    expect(text.stdout).toMatch(/boxed\s+stdio \(sandboxed\)\s+connected/);
    expect(text.stdout).toMatch(/open\s+stdio\s+connected/);
    expect(existsSync(CLI)).toBe(true);
  }, 150_000);
});
