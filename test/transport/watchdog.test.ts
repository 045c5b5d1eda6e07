import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { newTreeTag, TREE_TAG_VARIABLE, taggedProcesses } from "../../src/transport/tree-tag.js";
import { watchdogArgs } from "../../src/transport/watchdog.js";
import { fixturePath, stdioEntry } from "../fixtures/servers/index.js";
import { pidsIn, running } from "../helpers/process.js";
import { tempDirs, until } from "../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-watchdog-");
const built = (path: string) => JSON.stringify(resolve(process.cwd(), "dist", path));
const hostScript = resolve(process.cwd(), "dist/test/fixtures/hosts/bridge-host.js");

/** Every process, with its parent and process group, from /proc (Linux). */
function processTable(): { pid: number; ppid: number; pgrp: number; state: string }[] {
  const table = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const [state = "", ppid, pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      table.push({ pid: Number(name), ppid: Number(ppid), pgrp: Number(pgrp), state });
    } catch {
      // gone
    }
  }
  return table;
}

/** The processes of a group that still run (zombies do not). */
const groupMembers = (pgid: number) =>
  processTable()
    .filter((entry) => entry.pgrp === pgid && entry.state !== "Z" && entry.state !== "X")
    .map((entry) => entry.pid);

const started: ChildProcess[] = [];
/** Pids (and the groups they lead) to end whatever the outcome. */
const leftovers: number[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill("SIGKILL");
  for (const pid of leftovers.splice(0))
    for (const member of [pid, ...groupMembers(pid)]) if (running(member)) process.kill(member, "SIGKILL");
});

function launch(args: string[], options: { detached?: boolean } = {}): ChildProcess {
  const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"], ...options });
  started.push(child);
  return child;
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolveLine, reject) => {
    let output = "";
    child.stdout?.setEncoding("utf8").on("data", (text: string) => {
      output += text;
      if (output.includes("\n")) resolveLine(output.slice(0, output.indexOf("\n")));
    });
    child.once("exit", (code, signal) => reject(new Error(`host ended (${signal ?? code}): ${output}`)));
  });
}

describe.runIf(process.platform === "linux")("one watchdog per host", () => {
  it("several servers run as the host's own children beside one watchdog, and all die with a SIGKILLed host", async () => {
    const dir = tempDir();
    const pidFiles = [0, 1, 2].map((i) => join(dir, `pids-${i}.json`));
    const config = join(dir, "servers.json");
    const servers = Object.fromEntries(
      pidFiles.map((file, i) => [`tree${i}`, stdioEntry("spawns-child", { env: { PIDS_FILE: file } })]),
    );
    writeFileSync(config, JSON.stringify(servers));
    const host = launch([hostScript, config]);
    expect(await firstLine(host)).toBe("READY");
    await until(() => pidFiles.every(existsSync), 20_000);
    const trees = pidFiles.map(pidsIn);
    leftovers.push(...trees.flat());
    const children = processTable().filter((entry) => entry.ppid === host.pid);
    const serverPids = trees.map(([pid]) => pid);
    // Each server is the host's own child (no process between them), leading its own group.
    expect(children.map((entry) => entry.pid)).toEqual(expect.arrayContaining(serverPids));
    for (const pid of serverPids) expect(processTable().find((entry) => entry.pid === pid)?.pgrp).toBe(pid);
    // Besides them: exactly one process, the watchdog, in a session of its own.
    const others = children.filter((entry) => !serverPids.includes(entry.pid));
    expect(others).toHaveLength(1);
    const watchdog = others[0]?.pid as number;
    leftovers.push(watchdog);
    expect(readFileSync(`/proc/${watchdog}/cmdline`, "utf8")).toContain("-e");
    expect(others[0]?.pgrp).toBe(watchdog);

    host.kill("SIGKILL");
    await expect
      .poll(() => [...trees.flat(), watchdog].filter(running), { timeout: 15_000, interval: 100 })
      .toEqual([]);
  }, 60_000);

  it("a server whose host was killed before the watchdog had booted still dies (its pgid waited in the pipe)", async () => {
    // The host starts a server that ignores stdin EOF, prints its pid and kills itself at once, in the
    // same turn as the spawn: the watchdog was spawned a moment ago and has not read anything yet.
    const script = `
      import { ProcessTransport } from ${built("src/transport/process-transport.js")};
      const transport = new ProcessTransport({
        command: process.execPath, args: [${JSON.stringify(fixturePath("spawns-child"))}], env: {},
      });
      void transport.start();
      process.stdout.write(transport.pid + "\\n");
      process.kill(process.pid, "SIGKILL");`;
    const host = launch(["--input-type=module", "-e", script]);
    const server = Number(await firstLine(host));
    expect(server).toBeGreaterThan(1);
    leftovers.push(server);
    await expect.poll(() => groupMembers(server), { timeout: 20_000, interval: 100 }).toEqual([]);
  }, 60_000);

  it("a host that survives a Ctrl-C at its terminal keeps its guard; a host that does not takes its servers along", async () => {
    const script = (ignoreInterrupt: boolean) => `
      import { ProcessTransport } from ${built("src/transport/process-transport.js")};
      ${ignoreInterrupt ? 'process.on("SIGINT", () => {});' : ""}
      const transport = new ProcessTransport({
        command: process.execPath, args: [${JSON.stringify(fixturePath("spawns-child"))}], env: {},
      });
      await transport.start();
      process.stdout.write(transport.pid + "\\n");
      setInterval(() => {}, 1000);`;
    for (const ignoreInterrupt of [true, false]) {
      // Detached: the host leads its own group, as a shell's foreground job does; Ctrl-C signals that group.
      const host = launch(["--input-type=module", "-e", script(ignoreInterrupt)], { detached: true });
      const server = Number(await firstLine(host));
      leftovers.push(server);
      const exited = new Promise((done) => host.once("exit", done));
      process.kill(-(host.pid as number), "SIGINT");
      if (ignoreInterrupt) {
        await new Promise((done) => setTimeout(done, 300));
        expect(host.exitCode === null && host.signalCode === null).toBe(true);
        host.kill("SIGKILL");
      }
      await exited;
      await expect.poll(() => groupMembers(server), { timeout: 20_000, interval: 100 }).toEqual([]);
    }
  }, 90_000);

  it("a host that closes its servers exits on its own: the watchdog does not hold its event loop", async () => {
    const script = `
      import { ProcessTransport } from ${built("src/transport/process-transport.js")};
      const transport = new ProcessTransport({
        command: process.execPath, args: [${JSON.stringify(fixturePath("normal"))}], env: {},
      });
      await transport.start();
      await transport.close();
      process.stdout.write("closed\\n");`;
    const host = launch(["--input-type=module", "-e", script]);
    const exit = new Promise<number | null>((done) => host.once("exit", (code) => done(code)));
    expect(await firstLine(host)).toBe("closed");
    expect(await exit).toBe(0);
  }, 60_000);

  it("ends the groups it holds (SIGKILL after the grace for one that ignores SIGTERM), never one it was told is gone", async () => {
    const group = (ignoreTerm: boolean) => {
      const code = `${ignoreTerm ? 'process.on("SIGTERM", () => {});' : ""} setInterval(() => {}, 1000); console.log("up")`;
      return launch(["-e", code], { detached: true });
    };
    const stubborn = group(true);
    const released = group(false);
    await Promise.all([firstLine(stubborn), firstLine(released)]);
    const watchdog = spawn(process.execPath, watchdogArgs(300), { stdio: ["pipe", "ignore", "inherit"] });
    started.push(watchdog);
    const watchdogExit = new Promise((done) => watchdog.once("exit", done));
    watchdog.stdin?.write(`+${stubborn.pid}\n+${released.pid}\n`);
    watchdog.stdin?.write(`-${released.pid}\n`);
    // The host's end of the pipe closes: the host is gone.
    watchdog.stdin?.end();
    await watchdogExit;
    await expect.poll(() => groupMembers(stubborn.pid as number), { timeout: 5000 }).toEqual([]);
    expect(running(released.pid as number)).toBe(true);
  }, 40_000);

  it("ends the processes carrying a group's tree tag (a session of their own), and none with another tag", async () => {
    const tag = newTreeTag();
    const other = newTreeTag();
    const tagged = (value: string) => {
      const code = 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000); console.log("up")';
      const child = spawn(process.execPath, ["-e", code], {
        stdio: ["ignore", "pipe", "inherit"],
        detached: true,
        env: { [TREE_TAG_VARIABLE]: value },
      });
      started.push(child);
      return child;
    };
    const escaped = tagged(tag);
    const stranger = tagged(other);
    await Promise.all([firstLine(escaped), firstLine(stranger)]);
    expect(taggedProcesses(tag)).toEqual([escaped.pid]);
    // The group named is already gone: only the tag still finds the tree's process.
    const gone = launch(["-e", ""], { detached: true });
    await new Promise((done) => gone.once("exit", done));
    const watchdog = spawn(process.execPath, watchdogArgs(300), { stdio: ["pipe", "ignore", "inherit"] });
    started.push(watchdog);
    const watchdogExit = new Promise((done) => watchdog.once("exit", done));
    watchdog.stdin?.end(`+${gone.pid} ${tag}\n`);
    await watchdogExit;
    await expect.poll(() => running(escaped.pid as number), { timeout: 5000 }).toBe(false);
    expect(running(stranger.pid as number)).toBe(true);
  }, 40_000);
});
