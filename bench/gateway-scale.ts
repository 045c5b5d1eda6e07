/**
 * `npm run bench:gateway [-- --calls N --clients C --per-minute L --sdk-client]`: the gateway scaled
 * out on one machine, as bench/cluster/cluster.ts builds it: three `mcp-bridge serve --http` replicas
 * on 127.0.0.1 behind nginx (configured from deploy/nginx/mcp-bridge.conf: round-robin, no affinity),
 * sharing a redis-server (`--store`) and a round-state key file (`--state-keys`). Needs nginx and
 * redis-server (Debian packages). Measures:
 *
 *   - throughput: C concurrent MCP clients (default 32) making N tools/call (default 3200) against one
 *     replica directly, then through nginx to the three;
 *   - (a) 2025-era session clients, (b) 2026-07-28 clients through a tool that asks twice (on a 2025-era
 *     and a 2026 upstream), (c) one client over a per-minute limit of L (default 300), all through nginx
 *     (see bench/cluster/scenarios.ts);
 *   - (d) the throughput run again, one replica SIGKILLed after a third of the calls: the calls lost
 *     (nginx names the replica each had: only the killed one's may be) and that every call after it
 *     was gone was answered by the two others.
 *
 * Prints one table; exits non-zero when a correctness check fails. The clients of the throughput runs
 * are mcp-bridge itself (one bridge each); `--sdk-client` uses the plain SDK client. Not part of
 * `npm test` (test/gateway/cluster.test.ts runs the same scenarios small).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startBridge } from "../src/bridge/bridge.js";
import { type Cluster, clusterUnavailable, type Replica, startCluster } from "./cluster/cluster.js";
import {
  killedReplica,
  multiRoundClients,
  type PidCaller,
  rateLimitedClient,
  type ScenarioRow,
  scenarioTable,
  sessionClients,
} from "./cluster/scenarios.js";

function argValue(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} takes a positive integer`);
  return value;
}

const CALLS = argValue("calls", 3200);
const CLIENTS = argValue("clients", 32);
const PER_MINUTE = argValue("per-minute", 300);
const SDK_CLIENT = process.argv.includes("--sdk-client");
const REPLICAS = 3;
const CALL_TIMEOUT_MS = 15_000;
/** Token ranges: 0 the limited client, 100+ sessions, 200+ rounds, then CLIENTS per throughput run. */
const RUN_TOKENS = 300;

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** One client of a throughput run: calls the `pid` tool of upstream `normal`. */
interface BenchClient {
  readonly pid: PidCaller;
  close(): Promise<void>;
}

function pidOf(result: { content?: unknown; isError?: boolean }): number {
  const first = (result.content as { type: string; text?: string }[] | undefined)?.[0];
  const pid = Number(first?.text);
  if (result.isError || !Number.isInteger(pid))
    throw new Error(`unexpected pid result ${JSON.stringify(result)}`);
  return pid;
}

function toolNamed(names: readonly string[], suffix: string): string {
  const name = names.find((n) => n === suffix || n.endsWith(`_${suffix}`));
  if (!name) throw new Error(`no tool "${suffix}" among ${names.join(", ")}`);
  return name;
}

async function connect(url: URL, token: string): Promise<BenchClient> {
  if (SDK_CLIENT) {
    const client = new Client({ name: "scale-bench", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const tool = toolNamed(
      (await client.listTools()).tools.map((t) => t.name),
      "normal_pid",
    );
    return {
      pid: async () =>
        pidOf(await client.callTool({ name: tool, arguments: {} }, { timeout: CALL_TIMEOUT_MS })),
      close: () => client.close(),
    };
  }
  const bridge = await startBridge({
    servers: { scale: { url: url.href, headers: { Authorization: `Bearer ${token}` } } },
    telemetry: false,
  });
  const tool = toolNamed(
    bridge.tools().map((t) => t.name),
    "normal_pid",
  );
  return {
    pid: async () => pidOf(await bridge.call(tool, {}, { timeout: CALL_TIMEOUT_MS, onError: "throw" })),
    close: () => bridge.close(),
  };
}

/** The clients of throughput run `run`, each with its own token (so its own per-minute budget). */
function clientsOf(cluster: Cluster, url: URL, run: number): Promise<BenchClient[]> {
  return Promise.all(
    Array.from({ length: CLIENTS }, (_, i) => connect(url, cluster.token(RUN_TOKENS + run * CLIENTS + i))),
  );
}

/** CLIENTS clients share CALLS calls; the row has calls/s and every failure. */
async function throughput(
  cluster: Cluster,
  name: string,
  url: URL,
  run: number,
): Promise<ScenarioRow & { rate: number }> {
  const clients = await clientsOf(cluster, url, run);
  let next = 0;
  let ok = 0;
  const problems: string[] = [];
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      while (next < CALLS) {
        next++;
        try {
          await client.pid();
          ok++;
        } catch (error) {
          problems.push(error instanceof Error ? error.message.slice(0, 160) : String(error));
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  const rate = ok / seconds;
  const failed = CALLS - ok;
  return {
    scenario: name,
    ok: failed === 0,
    figures: `${rate.toFixed(0)} calls/s (${ok} ok, ${failed} failed, ${seconds.toFixed(2)} s)`,
    problems: problems.slice(0, 3),
    rate,
  };
}

async function main(): Promise<void> {
  const unavailable = await clusterUnavailable();
  if (unavailable) throw new Error(unavailable);
  log(`starting ${REPLICAS} replicas, Redis and nginx`);
  const cluster = await startCluster({
    replicas: REPLICAS,
    tokens: RUN_TOKENS + 3 * CLIENTS,
    callsPerMinute: PER_MINUTE,
    // A loaded machine starts three replicas (each with its upstream servers) slowly.
    startTimeoutMs: 120_000,
  });
  try {
    const missing = ["--store", "--state-keys"].filter((flag) => !cluster.clusterFlags.includes(flag));
    log(
      `${SDK_CLIENT ? "SDK clients" : "mcp-bridge clients"} -> ${REPLICAS} replicas (${cluster.replicas.map((r) => r.address).join(", ")}) behind nginx ${cluster.balancer.host}, Redis ${cluster.redis?.url ?? "none"}; ${CLIENTS} clients, ${CALLS} calls${missing.length ? `; this build lacks ${missing.join(", ")}` : ""}`,
    );
    const rows: ScenarioRow[] = [];
    const first = cluster.replicas[0] as Replica;
    const single = await throughput(cluster, "one replica direct", first.url, 0);
    rows.push(single);
    const balanced = await throughput(cluster, "3 replicas behind nginx", cluster.balancer, 1);
    rows.push({
      ...balanced,
      figures: `${balanced.figures}; ${(balanced.rate / single.rate).toFixed(2)}x one replica`,
    });
    rows.push(await sessionClients(cluster, 8, 20));
    rows.push(await multiRoundClients(cluster, 8));
    rows.push(await rateLimitedClient(cluster, PER_MINUTE));
    const victim = cluster.replicas[REPLICAS - 1] as Replica;
    const probe = await connect(victim.url, cluster.token(RUN_TOKENS - 1));
    const victimPid = await probe.pid();
    await probe.close();
    const killers = await clientsOf(cluster, cluster.balancer, 2);
    rows.push(
      await killedReplica(
        cluster,
        victim,
        victimPid,
        killers.map((client) => client.pid),
        CALLS,
      ),
    );
    await Promise.all(killers.map((client) => client.close().catch(() => undefined)));
    process.stdout.write(scenarioTable(rows));
    process.exitCode = rows.every((r) => r.ok) ? 0 : 1;
  } finally {
    await cluster.stop();
  }
}

try {
  await main();
} catch (error) {
  log(`bench:gateway: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
