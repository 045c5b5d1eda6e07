import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { alive, stdioEntry, waitForExit } from "../fixtures/servers/index.js";
import { tempDirs, until } from "../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-supervisor-");
const hostScript = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../../dist/test/fixtures/hosts/bridge-host.js",
);

describe.runIf(process.platform !== "win32")("a server tree dies with its host", () => {
  it("after SIGKILL of the host, a server that ignores stdin EOF and its grandchild are gone", async () => {
    const dir = tempDir();
    const pidsFile = join(dir, "pids.json");
    const config = join(dir, "servers.json");
    // spawns-child keeps running after stdin EOF: its own child keeps its event loop alive.
    writeFileSync(
      config,
      JSON.stringify({ tree: stdioEntry("spawns-child", { env: { PIDS_FILE: pidsFile } }) }),
    );
    const host = spawn(process.execPath, [hostScript, config], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      let output = "";
      host.stdout?.on("data", (data: Buffer) => {
        output += data.toString();
      });
      await until(() => output.includes("READY") && existsSync(pidsFile), 20_000);
      const { pid, childPid } = JSON.parse(readFileSync(pidsFile, "utf8")) as {
        pid: number;
        childPid: number;
      };
      expect(alive(pid) && alive(childPid)).toBe(true);
      host.kill("SIGKILL");
      expect(await waitForExit([pid, childPid], 10_000)).toEqual([]);
    } finally {
      host.kill("SIGKILL");
      // Whatever the outcome, leave no process of the tree behind.
      if (existsSync(pidsFile)) {
        const pids = JSON.parse(readFileSync(pidsFile, "utf8")) as Record<string, number>;
        for (const pid of Object.values(pids)) if (alive(pid)) process.kill(pid, "SIGKILL");
      }
    }
  }, 40_000);
});
