import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { callTool, initialized, openSession, type Session, toolsList } from "./attach-fleet.js";
import { descendants, rssKiB, ussKiB } from "./proc-memory.js";
import type { Figure } from "./stats.js";

/**
 * Issue 38.3: the resident memory of 10 host sessions over 10 servers through `attach` (one daemon,
 * one set of servers) against one such session, and against hosts that spawn their own servers (a
 * `serve --stdio` per session, each with its 10 servers). Memory is the sum of RSS (VmRSS) over every
 * process involved: the attach relays and whatever runs below them, the daemon and its servers and
 * watchdog; for `serve --stdio`, the serve process and everything below it.
 * Runs alone as `node dist/bench/attach-memory.js` after the build (Linux only: /proc).
 */

const CLI = fileURLToPath(new URL("../src/apps/cli/bin.js", import.meta.url));
const SERVER = fileURLToPath(new URL("servers/bench-server.js", import.meta.url));
const SERVERS = 10;
const SESSIONS = 10;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function daemonPid(runtime: string): number {
  const folder = join(runtime, "mcp-bridge");
  const file = readdirSync(folder).find((name) => name.endsWith(".pid"));
  return Number.parseInt(readFileSync(join(folder, file as string), "utf8"), 10);
}

/**
 * RSS (and USS) summed over these processes and every process below them, each counted once, in KiB.
 * RSS counts the pages Node's binary shares between processes in each of them; USS only what a
 * process alone holds.
 */
function treeKiB(roots: readonly number[]): { kib: number; uss: number; processes: number } {
  const all = new Set<number>();
  for (const root of roots) {
    all.add(root);
    for (const pid of descendants(root)) all.add(pid);
  }
  let kib = 0;
  let uss = 0;
  for (const pid of all) {
    kib += rssKiB(pid);
    uss += ussKiB(pid);
  }
  return { kib, uss, processes: all.size };
}

/**
 * Lists until every server's `add` is there, then calls each once: every server runs (under `attach`
 * a server the catalog lists starts on its first call).
 */
async function everyServerRunning(session: Session): Promise<void> {
  const adds = Array.from({ length: SERVERS }, (_, i) => `s${i}_add`);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const names = new Set((await toolsList(session)).map((tool) => tool.name));
    if (adds.every((name) => names.has(name))) break;
    if (Date.now() > deadline) throw new Error(`attach memory bench: not every server listed its tools`);
    await sleep(100);
  }
  for (const name of adds) await callTool(session, name, { a: 1, b: 2 });
}

export async function attachMemoryFigures(): Promise<Figure[]> {
  const home = mkdtempSync(join(tmpdir(), "mcp-bridge-bench-mem-"));
  const runtime = mkdtempSync(join(tmpdir(), "mcp-bridge-bench-mem-run-"));
  // A catalog cache of its own, empty: every server starts with the daemon (none is left lazy).
  const env = { ...process.env, XDG_RUNTIME_DIR: runtime, MCP_BRIDGE_CACHE_DIR: join(home, "cache") };
  const config = join(home, "servers.json");
  const servers = Array.from({ length: SERVERS }, (_, i) => [
    `s${i}`,
    { command: process.execPath, args: [SERVER] },
  ]);
  writeFileSync(config, JSON.stringify({ mcpServers: Object.fromEntries(servers) }));
  const sessions: Session[] = [];
  try {
    // Hosts that spawn their own: one `serve --stdio` session and its servers; ten cost ten times that.
    const own = openSession(config, env, home, ["serve", "--stdio"]);
    sessions.push(own);
    await initialized(own);
    await everyServerRunning(own);
    await sleep(500);
    const ownOne = treeKiB([own.child.pid as number]);
    own.child.stdin?.end();
    await new Promise((resolve) => own.child.once("close", resolve));
    sessions.pop();

    const first = openSession(config, env, home);
    sessions.push(first);
    await initialized(first);
    await everyServerRunning(first);
    const daemon = daemonPid(runtime);
    const measure = () => treeKiB([daemon, ...sessions.map((s) => s.child.pid as number)]);
    await sleep(500);
    const one = measure();
    for (let i = 1; i < SESSIONS; i++) {
      const session = openSession(config, env, home);
      sessions.push(session);
      await initialized(session);
      await toolsList(session);
    }
    await sleep(500);
    const ten = measure();
    const ratio = ten.kib / one.kib;
    const ownRatio = (SESSIONS * ownOne.kib) / one.kib;
    const mib = (kib: number) => (kib / 1024).toFixed(1);
    // The relays alone: what the 9 extra sessions added, per session.
    const perSession = (ten.kib - one.kib) / (SESSIONS - 1);
    const ussRatio = ten.uss / one.uss;
    return [
      {
        name: "attach_rss_10_sessions_10_servers",
        unit: "MiB",
        bridge: ten.kib / 1024,
        baseline: one.kib / 1024,
        baselineName: "1 session",
        detail: `sum of RSS over the attach relays, the daemon, its ${SERVERS} servers and its watchdog: ${mib(one.kib)} MiB (${one.processes} processes) with 1 session, ${mib(ten.kib)} MiB (${ten.processes}) with ${SESSIONS}, ratio ${ratio.toFixed(2)}, +${mib(perSession)} MiB per added session (its relay); USS ${mib(one.uss)} -> ${mib(ten.uss)} MiB, ratio ${ussRatio.toFixed(2)}; hosts spawning their own (serve --stdio per session, measured once: ${mib(ownOne.kib)} MiB, ${ownOne.processes} processes) x${SESSIONS} = ${mib(SESSIONS * ownOne.kib)} MiB, ratio ${ownRatio.toFixed(2)}`,
        target: { text: `<= 1.1x (spawning their own: ${ownRatio.toFixed(1)}x)`, met: ratio <= 1.1 },
      },
    ];
  } finally {
    for (const session of sessions) session.child.kill("SIGKILL");
    spawnSync(process.execPath, [CLI, "daemon", "stop", "-c", config], { env, cwd: home });
    rmSync(home, { recursive: true, force: true });
    rmSync(runtime, { recursive: true, force: true });
  }
}

// Alone: `node dist/bench/attach-memory.js`.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const figure of await attachMemoryFigures())
    process.stdout.write(
      `${figure.name}: ${figure.bridge.toFixed(1)} ${figure.unit} vs ${figure.baselineName} ${figure.baseline.toFixed(1)} ${figure.unit}; ${figure.detail}; target ${figure.target?.text}: ${figure.target?.met ? "met" : "NOT met"}\n`,
    );
}
