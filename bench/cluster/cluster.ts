/**
 * A local cluster: N `mcp-bridge serve --http` replicas on 127.0.0.1 behind nginx (the shipped example's
 * round-robin upstream, no affinity), sharing a redis-server (`--store`) and a round-state key file
 * (`--state-keys`), each fronting its own stdio upstreams (`normal`, the 2025-era `twice2025`) and one
 * shared 2026-07-28 HTTP upstream (`twice2026`). Clients authenticate with one of `tokens` bearer
 * tokens, each its own client (own limits). Used by `npm run bench:gateway` and
 * test/gateway/cluster.test.ts.
 */

import type { ChildProcess } from "node:child_process";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startNginx } from "./nginx.js";
import {
  BUILT_CLI,
  builtFixture,
  freePort,
  hasCommand,
  outputMatch,
  type ProcessGroup,
  processGroup,
  waitFor,
} from "./processes.js";
import { type LocalRedis, startRedis } from "./redis.js";

export interface ClusterOptions {
  readonly replicas: number;
  /** Bearer tokens in the auth file; `token(i)` is client i's. */
  readonly tokens: number;
  /** `--calls-per-minute` of every client. */
  readonly callsPerMinute: number;
  /** Each step's bound, in ms (a replica's start, nginx's, Redis's). */
  readonly startTimeoutMs?: number;
}

export interface Replica {
  readonly index: number;
  /** host:port, as nginx's upstream block names it. */
  readonly address: string;
  readonly url: URL;
  readonly process: ChildProcess;
}

export interface Cluster {
  readonly replicas: readonly Replica[];
  /** nginx's /mcp. */
  readonly balancer: URL;
  readonly redis: LocalRedis | undefined;
  /** The cluster flags this build of `serve` has (a build without them runs the replicas alone). */
  readonly clusterFlags: readonly string[];
  token(index: number): string;
  /** SIGKILLs a replica; resolves once its process is gone. */
  kill(replica: Replica): Promise<void>;
  stop(): Promise<void>;
}

/** The flags that make replicas one cluster, as `serve --help` may list them. */
const CLUSTER_FLAGS = [
  "--store",
  "--state-keys",
  "--cluster-secret-file",
  "--replica-id",
  "--advertise-url",
] as const;

/** Why a cluster cannot run on this machine, or undefined when it can. */
export async function clusterUnavailable(): Promise<string | undefined> {
  if (!(await hasCommand("nginx", ["-v"]))) return "nginx is not installed (apt-get install nginx-light)";
  if (!(await hasCommand("redis-server")))
    return "redis-server is not installed (apt-get install redis-server)";
  return undefined;
}

/** The cluster flags `serve --help` of the built CLI lists. */
function servedClusterFlags(): string[] {
  const help = spawnSync(process.execPath, [BUILT_CLI, "serve", "--help"], { encoding: "utf8" });
  if (help.status !== 0) throw new Error(`the built CLI has no serve command: ${help.stderr.trim()}`);
  return CLUSTER_FLAGS.filter((flag) => new RegExp(`${flag}\\b`).test(help.stdout + help.stderr));
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const group = processGroup("mcp-bridge-cluster-");
  try {
    return await started(group, options);
  } catch (error) {
    await group.stop();
    throw error;
  }
}

async function started(group: ProcessGroup, options: ClusterOptions): Promise<Cluster> {
  const bound = options.startTimeoutMs ?? 30_000;
  const clusterFlags = servedClusterFlags();
  const redis = clusterFlags.includes("--store") ? await startRedis(group) : undefined;
  const token = (index: number) => `cluster-bench-token-${index}`;
  const authFile = join(group.work, "auth.json");
  writeFileSync(
    authFile,
    JSON.stringify({
      tokens: Array.from({ length: options.tokens }, (_, i) => ({ token: token(i), client: `client-${i}` })),
    }),
    { mode: 0o600 },
  );
  const keysFile = join(group.work, "state-keys");
  writeFileSync(keysFile, `k1:${randomBytes(32).toString("base64")}\n`, { mode: 0o600 });
  const secretFile = join(group.work, "cluster-secret");
  writeFileSync(secretFile, randomBytes(48).toString("base64"), { mode: 0o600 });
  const modern = group.spawn(process.execPath, [builtFixture("asks-twice"), "--http", "--modern"]);
  const modernUrl = (
    await outputMatch(modern, /LISTENING (\S+)/, "the 2026-07-28 upstream", bound)
  )[1] as string;
  const config = join(group.work, "mcp.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        normal: { command: process.execPath, args: [builtFixture("normal")] },
        twice2025: { command: process.execPath, args: [builtFixture("asks-twice")] },
        twice2026: { url: modernUrl },
      },
    }),
  );
  const replicas = await Promise.all(
    Array.from({ length: options.replicas }, async (_, index): Promise<Replica> => {
      const port = await freePort();
      const address = `127.0.0.1:${port}`;
      const url = new URL(`http://${address}/mcp`);
      const cluster: Record<(typeof CLUSTER_FLAGS)[number], string | undefined> = {
        "--store": redis?.url,
        "--state-keys": keysFile,
        "--cluster-secret-file": secretFile,
        "--replica-id": `replica-${index}`,
        "--advertise-url": url.href,
      };
      const args = [BUILT_CLI, "serve", "--http", address, "--config", config, "--auth", authFile];
      args.push("--max-calls", "1000", "--calls-per-minute", String(options.callsPerMinute));
      for (const flag of clusterFlags) {
        const value = cluster[flag as keyof typeof cluster];
        if (value !== undefined) args.push(flag, value);
      }
      const child = group.spawn(process.execPath, args);
      await outputMatch(child, /listening on http/, `replica ${index}`, bound);
      await waitFor(
        `replica ${index} to be ready`,
        async () => (await fetch(new URL("/readyz", url)).catch(() => undefined))?.status === 200,
        bound,
      );
      return { index, address, url, process: child };
    }),
  );
  const balancer = await startNginx(
    group,
    replicas.map((replica) => replica.address),
  );
  return {
    replicas,
    balancer,
    redis,
    clusterFlags,
    token,
    kill: (replica) =>
      new Promise<void>((gone) => {
        if (replica.process.exitCode !== null || replica.process.signalCode !== null) return gone();
        replica.process.once("exit", () => gone());
        replica.process.kill("SIGKILL");
      }),
    stop: () => group.stop(),
  };
}
