import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, clusterUnavailable, startCluster } from "../../bench/cluster/cluster.js";
import {
  killedReplica,
  modernPidCaller,
  multiRoundClients,
  rateLimitedClient,
  type ScenarioRow,
  sessionClients,
} from "../../bench/cluster/scenarios.js";

// Three replicas of the built gateway behind nginx without affinity, sharing Redis and round-state
// keys (bench/cluster/cluster.ts, the setup `npm run bench:gateway` measures), a few calls per scenario.
const unavailable = await clusterUnavailable();
if (unavailable) process.stderr.write(`cluster.test.ts skipped: ${unavailable}\n`);

const PER_MINUTE = 6;
let cluster: Cluster | undefined;

/** A scenario's row, its problems shown when a check failed. */
function expectOk(result: ScenarioRow): void {
  expect(result.problems, result.figures).toEqual([]);
  expect(result.ok).toBe(true);
}

describe.skipIf(unavailable !== undefined)("three gateway replicas behind nginx, no affinity", () => {
  beforeAll(async () => {
    cluster = await startCluster({
      replicas: 3,
      tokens: 300,
      callsPerMinute: PER_MINUTE,
      startTimeoutMs: 45_000,
    });
  }, 100_000);
  afterAll(async () => {
    await cluster?.stop();
  }, 10_000);

  const running = () => cluster as Cluster;

  it("2025-era session clients are answered whichever replica each request reaches", async () => {
    expectOk(await sessionClients(running(), 3, 3));
  }, 20_000);

  it("2026 clients' multi-round elicitation is answered correctly, with 2025-era and 2026 upstreams", async () => {
    expectOk(await multiRoundClients(running(), 2));
  }, 20_000);

  it("a per-minute limit of N admits N calls across the three replicas, not 3N", async () => {
    expectOk(await rateLimitedClient(running(), PER_MINUTE));
  }, 20_000);

  it("a replica killed mid-run loses only the calls in flight on it", async () => {
    const cluster = running();
    const victim = cluster.replicas[2];
    if (!victim) throw new Error("no third replica");
    // Six clients, four calls each: under their per-minute limit, so only the kill can fail a call.
    const callers = Array.from({ length: 6 }, (_, i) => modernPidCaller(cluster, 10 + i));
    // Which upstream process answers through the victim: asked of it directly.
    const victimPid = await modernPidCaller({ ...cluster, balancer: victim.url }, 20)();
    expectOk(await killedReplica(cluster, victim, victimPid, callers, 24));
  }, 20_000);
});
