import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { type AttachSession, attachSession, textOf, toolNamed } from "../helpers/attach-client.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { running } from "../helpers/process.js";
import { tempDirs, until } from "../helpers/wait.js";

/**
 * Issue 38.4: after `kill -9` of whatever owns a server (a library host, an `attach` relay, the daemon),
 * no process of the server's tree remains: not the server, not its child that ignores SIGTERM in the
 * server's process group, not its grandchild that ignores SIGTERM in a session (and group) of its own.
 * Every wait is bounded and polls /proc; nothing sleeps.
 */

const tempDir = tempDirs("mcp-bridge-orphans-");
const hostScript = resolve(process.cwd(), "dist/test/fixtures/hosts/bridge-host.js");

interface Tree {
  readonly pid: number;
  readonly childPid: number;
  readonly grandchildPid: number;
}
const treeIn = (file: string): Tree => JSON.parse(readFileSync(file, "utf8")) as Tree;
const pidsOf = (tree: Tree) => [tree.pid, tree.childPid, tree.grandchildPid];

/** The session of a process (Linux /proc), to show the grandchild really left the server's. */
function sessionOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]);
}

const started: ChildProcess[] = [];
const sessions: AttachSession[] = [];
/** Pids to end whatever the outcome, so a failing test leaves nothing behind either. */
const leftovers: number[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill("SIGKILL");
  for (const session of sessions.splice(0)) session.child.kill("SIGKILL");
  for (const pid of leftovers.splice(0)) if (running(pid)) process.kill(pid, "SIGKILL");
});

/** Waits (bounded, on /proc) until none of the pids runs; returns those still running. */
async function stillRunning(pids: readonly number[], timeoutMs = 15_000): Promise<number[]> {
  try {
    await until(() => !pids.some(running), timeoutMs);
  } catch {
    // reported below
  }
  return pids.filter(running);
}

function readyLine(child: ChildProcess): Promise<string> {
  return new Promise((done, fail) => {
    let output = "";
    child.stdout?.setEncoding("utf8").on("data", (text: string) => {
      output += text;
      if (output.includes("\n")) done(output.slice(0, output.indexOf("\n")));
    });
    child.once("exit", (code, signal) => fail(new Error(`host ended (${signal ?? code}): ${output}`)));
  });
}

describe.runIf(process.platform === "linux")(
  "kill -9 of a server's owner leaves no process of its tree",
  () => {
    it("the grandchild of the fixture runs in a session and group of its own", async () => {
      const dir = tempDir();
      const pidsFile = join(dir, "pids.json");
      const config = join(dir, "servers.json");
      writeFileSync(
        config,
        JSON.stringify({ tree: stdioEntry("escapes-session", { env: { PIDS_FILE: pidsFile } }) }),
      );
      const host = spawn(process.execPath, [hostScript, config], { stdio: ["pipe", "pipe", "inherit"] });
      started.push(host);
      expect(await readyLine(host)).toBe("READY");
      const tree = treeIn(pidsFile);
      leftovers.push(...pidsOf(tree));
      expect(sessionOf(tree.grandchildPid)).toBe(tree.grandchildPid);
      expect(sessionOf(tree.pid)).toBe(tree.pid);
      expect(sessionOf(tree.childPid)).toBe(tree.pid);
    }, 60_000);

    it("(a) a library host (startBridge) killed with SIGKILL", async () => {
      const dir = tempDir();
      const files = [0, 1].map((i) => join(dir, `pids-${i}.json`));
      const config = join(dir, "servers.json");
      const servers = {
        tree0: stdioEntry("escapes-session", { env: { PIDS_FILE: files[0] as string } }),
        tree1: stdioEntry("escapes-session", { env: { PIDS_FILE: files[1] as string } }),
      };
      writeFileSync(config, JSON.stringify(servers));
      const host = spawn(process.execPath, [hostScript, config], { stdio: ["pipe", "pipe", "inherit"] });
      started.push(host);
      expect(await readyLine(host)).toBe("READY");
      const pids = files.flatMap((file) => pidsOf(treeIn(file)));
      leftovers.push(...pids);
      expect(pids.every(running)).toBe(true);
      host.kill("SIGKILL");
      expect(await stillRunning(pids)).toEqual([]);
    }, 60_000);

    it("a crashed server's tree is ended while its host lives; a closed bridge ends the whole tree", async () => {
      const dir = tempDir();
      const files = [0, 1].map((i) => join(dir, `pids-${i}.json`));
      await using bridge = await startBridge({
        servers: {
          crashes: stdioEntry("escapes-session", { env: { PIDS_FILE: files[0] as string }, restart: false }),
          closed: stdioEntry("escapes-session", { env: { PIDS_FILE: files[1] as string } }),
        },
      });
      const [crashed, closed] = files.map(treeIn) as [Tree, Tree];
      leftovers.push(...pidsOf(crashed), ...pidsOf(closed));
      process.kill(crashed.pid, "SIGKILL");
      expect(await stillRunning(pidsOf(crashed))).toEqual([]);
      expect(pidsOf(closed).every(running)).toBe(true);
      await bridge.close();
      expect(await stillRunning(pidsOf(closed))).toEqual([]);
    }, 60_000);

    describe("attach and the daemon", () => {
      /** A fresh runtime folder per test: its own daemon, never the user's. */
      function daemonSetup() {
        const dir = tempDir();
        const pidsFile = join(dir, "pids.json");
        const config = join(dir, "servers.json");
        const entry = stdioEntry("escapes-session", { env: { PIDS_FILE: pidsFile } });
        writeFileSync(config, JSON.stringify({ mcpServers: { tree: entry } }));
        const env = cliEnv(dir, { XDG_RUNTIME_DIR: join(dir, "run") });
        const open = (extra: string[] = []) => {
          const session = attachSession(["-c", config, ...extra], { cwd: dir, env });
          sessions.push(session);
          return session;
        };
        const daemonPid = async () => {
          const run = await runCli(["daemon", "status", "--json", "-c", config], { cwd: dir, env });
          const info = JSON.parse(run.stdout) as { running: boolean; pid: number };
          return info.running ? info.pid : 0;
        };
        /** The server's tree, once a call reached it (a lazy server starts at its first call). */
        const treeOf = async (session: AttachSession) => {
          const answer = await session.request("tools/call", {
            name: await toolNamed(session, "pids"),
            arguments: {},
          });
          return JSON.parse(textOf(answer)) as Tree;
        };
        return { pidsFile, open, daemonPid, treeOf };
      }

      it("(b) the attach relay killed: the daemon, once idle, stops and leaves no process of the tree", async () => {
        const { open, daemonPid, treeOf } = daemonSetup();
        const relay = open(["--idle", "1s"]);
        await relay.initialize();
        const tree = await treeOf(relay);
        const daemon = await daemonPid();
        leftovers.push(...pidsOf(tree), daemon);
        expect([daemon, ...pidsOf(tree)].every(running)).toBe(true);
        relay.child.kill("SIGKILL");
        expect(await stillRunning([daemon, ...pidsOf(tree)], 30_000)).toEqual([]);
      }, 90_000);

      it("(c) the daemon killed: its servers' trees end; the relay starts a new daemon", async () => {
        const { open, daemonPid, treeOf } = daemonSetup();
        const relay = open();
        await relay.initialize();
        const tree = await treeOf(relay);
        const daemon = await daemonPid();
        leftovers.push(...pidsOf(tree), daemon);
        process.kill(daemon, "SIGKILL");
        expect(await stillRunning(pidsOf(tree))).toEqual([]);
        // The relay reconnects to a daemon of its own starting, whose server is a new tree.
        await until(async () => ![0, daemon].includes(await daemonPid()), 45_000);
        const next = await treeOf(relay);
        leftovers.push(...pidsOf(next), await daemonPid());
        expect(next.pid).not.toBe(tree.pid);
      }, 120_000);
    });
  },
);
