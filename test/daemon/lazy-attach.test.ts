import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { alive, stdioEntry } from "../fixtures/servers/index.js";
import { type AttachSession, attachSession, textOf } from "../helpers/attach-client.js";
import { cliEnv, emptyHome, runCli } from "../helpers/cli.js";

/**
 * Issue 38.1: under `attach` (the daemon), a server the catalog cache lists runs no process until it
 * is used; `lazy: false` starts as before; an idle server stops and starts again on demand. Each
 * server is the catalog fixture with a spawn log of its own: one line per process started.
 */

let home: string;
let config: string;
let runtime: string;
let env: Record<string, string>;
const sessions: AttachSession[] = [];

const spawnLog = (server: string) => join(home, `${server}.spawns`);
function spawns(server: string): number[] {
  const file = spawnLog(server);
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.length > 0)
    .map(Number);
}
const entry = (server: string, extra: Record<string, unknown> = {}) =>
  stdioEntry("catalog", extra, ["--spawn-log", spawnLog(server)]);

beforeEach(() => {
  home = emptyHome();
  config = join(home, "servers.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        alpha: entry("alpha", { idleTimeout: "1s" }),
        beta: entry("beta"),
        eager: entry("eager", { lazy: false }),
      },
    }),
  );
  runtime = mkdtempSync(join(tmpdir(), "mcp-bridge-lazy-"));
  env = cliEnv(home, { XDG_RUNTIME_DIR: runtime });
});

afterEach(() => {
  for (const session of sessions.splice(0)) session.child.kill("SIGKILL");
  const folder = join(runtime, "mcp-bridge");
  const daemons = existsSync(folder) ? readdirSync(folder).filter((name) => name.endsWith(".pid")) : [];
  for (const name of daemons) {
    try {
      process.kill(Number.parseInt(readFileSync(join(folder, name), "utf8"), 10), "SIGKILL");
    } catch {
      // gone
    }
  }
  // The upstream servers are the daemon's children in their own groups: ended with it (watchdog),
  // and killed here too so that no test leaves one behind.
  for (const server of ["alpha", "beta", "eager"]) {
    for (const pid of spawns(server)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }
  rmSync(runtime, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function open(): AttachSession {
  const session = attachSession(["-c", config], { cwd: home, env });
  sessions.push(session);
  return session;
}

interface Row {
  name: string;
  state: string;
  activity: string | null;
  tools: number;
}
async function daemonRows(): Promise<Record<string, Row>> {
  const run = await runCli(["daemon", "status", "--json", "-c", config], { cwd: home, env });
  const info = JSON.parse(run.stdout) as { running: boolean; servers?: Row[] };
  if (!info.running) throw new Error(`no daemon: ${run.stdout} ${run.stderr}`);
  return Object.fromEntries((info.servers ?? []).map((row) => [row.name, row]));
}

const listed = async (session: AttachSession) =>
  (((await session.request("tools/list")).result?.tools ?? []) as { name: string }[])
    .map((tool) => tool.name)
    .sort();

/** A first daemon lists every server live, which fills the catalog cache; then it is stopped. */
async function warmCatalog(): Promise<void> {
  const first = open();
  await first.initialize();
  await until(async () => (await listed(first)).length === 3, "every server's tools");
  // The relay first: a relay whose daemon stops under it starts a new one (which would start eager
  // again, its spawn logged before the log is removed below).
  await first.close();
  await runCli(["daemon", "stop", "-c", config], { cwd: home, env });
  for (const server of ["alpha", "beta", "eager"]) {
    const [pid] = spawns(server);
    await until(() => pid !== undefined && !alive(pid), `${server}'s first process to end`);
    rmSync(spawnLog(server));
  }
}

describe("attach: lazy by default where the catalog cache answers", () => {
  it("runs no process of a listed server before its first call; lazy: false starts as before", async () => {
    await warmCatalog();
    const session = open();
    await session.initialize();
    // Listed from the catalog at once, with no process behind alpha and beta.
    expect(await listed(session)).toEqual(["alpha_echo", "beta_echo", "eager_echo"]);
    // eager (lazy: false) starts with the daemon, in the same loop that would have started the others.
    await until(async () => (await daemonRows()).eager?.activity === "running", "eager to run");
    expect(spawns("eager")).toHaveLength(1);
    expect(spawns("alpha")).toEqual([]);
    expect(spawns("beta")).toEqual([]);
    const rows = await daemonRows();
    expect(rows.alpha).toMatchObject({ state: "idle", activity: "never started", tools: 1 });
    expect(rows.beta).toMatchObject({ activity: "never started" });
    const table = await runCli(["daemon", "status", "-c", config], { cwd: home, env });
    expect(table.stdout).toMatch(/^alpha\s+stdio\s+never started\s+1\s/m);
    expect(table.stdout).toMatch(/^eager\s+stdio\s+connected\s+1\s/m);

    // A host's listings of resources and prompts start no server that declared neither.
    expect((await session.request("resources/list")).error).toBeUndefined();
    expect((await session.request("prompts/list")).error).toBeUndefined();
    expect(spawns("beta")).toEqual([]);

    // The first call starts alpha (only alpha) and is answered by it.
    const answer = await session.request("tools/call", { name: "alpha_echo", arguments: {} }, 30_000);
    expect(textOf(answer)).toBe("I am echo");
    expect(spawns("alpha")).toHaveLength(1);
    expect(spawns("beta")).toEqual([]);

    // Unused for its idle timeout (1 s), alpha stops; the next call starts it again.
    const [first] = spawns("alpha");
    await until(async () => (await daemonRows()).alpha?.activity === "idle", "alpha to go idle");
    await until(() => !alive(first as number), "alpha's process to end");
    const again = await session.request("tools/call", { name: "alpha_echo", arguments: {} }, 30_000);
    expect(textOf(again)).toBe("I am echo");
    expect(spawns("alpha")).toHaveLength(2);
    expect(spawns("beta")).toEqual([]);
  }, 120_000);

  it("starts every server with the daemon when there is no catalog yet", async () => {
    const session = open();
    await session.initialize();
    await until(async () => (await listed(session)).length === 3, "every server's tools");
    for (const server of ["alpha", "beta", "eager"]) expect(spawns(server)).toHaveLength(1);
  }, 90_000);
});
