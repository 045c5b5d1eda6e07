import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixturePath } from "../fixtures/servers/index.js";
import { CLI, cliEnv } from "../helpers/cli.js";
import { freePort, hasRedis, startRedisServer } from "../helpers/redis-server.js";
import { until } from "../helpers/wait.js";
import { connect, textOf } from "./client.js";

/**
 * Several `serve --http --store redis://…` processes on one real redis-server: what the replicas
 * share (per-minute budgets, 2025-11-25 sessions) and what happens when a replica or Redis fails.
 */

if (!hasRedis)
  console.log("cluster-store tests skipped: redis-server is not installed (apt-get install redis-server)");

const PER_MINUTE = 8;
const TOKENS = {
  alice: "alice-token",
  mallory: "mallory-token",
  limited: "limited-token",
  carol: "carol-token",
};

const children: ChildProcess[] = [];

/** A redis-server on `port`, killed with the replicas. */
async function startRedis(port: number): Promise<ChildProcess> {
  const { child } = await startRedisServer(port);
  children.push(child);
  return child;
}

interface Replica {
  readonly name: string;
  readonly url: string;
  readonly metrics: string;
  readonly child: ChildProcess;
  stderr: string;
}

function startReplica(home: string, name: string, store: string, secretFile: string): Promise<Replica> {
  const child = spawn(
    process.execPath,
    [
      CLI,
      "serve",
      "--http",
      "127.0.0.1:0",
      "--json",
      "-c",
      join(home, "mcp.json"),
      "--store",
      store,
      "--cluster-secret-file",
      secretFile,
      "--replica-id",
      name,
      "--calls-per-minute",
      String(PER_MINUTE),
      "--metrics",
      "127.0.0.1:0",
    ],
    {
      cwd: home,
      env: cliEnv(home, { MCP_BRIDGE_GATEWAY_TOKENS: Object.values(TOKENS).join(",") }),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    const replica = { name, child, stderr: "", url: "", metrics: "" };
    const timer = setTimeout(
      () => reject(new Error(`replica ${name} did not start: ${replica.stderr}`)),
      30_000,
    );
    const ready = () => {
      if (!replica.url || !replica.metrics) return;
      clearTimeout(timer);
      resolve(replica);
    };
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      replica.stderr += chunk;
      const found = /Prometheus metrics at (\S+)/.exec(replica.stderr);
      if (found?.[1]) replica.metrics = found[1];
      ready();
    });
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) replica.url = (JSON.parse(line) as { url: string }).url;
      ready();
    });
  });
}

/** The store gauge a replica exposes, or undefined when it shows none. */
async function storeUp(replica: Replica): Promise<number | undefined> {
  const text = await (await fetch(replica.metrics)).text();
  const line = text.split("\n").find((l) => l.startsWith("mcp_bridge_gateway_store_up"));
  return line === undefined ? undefined : Number(line.split(" ").at(-1));
}

/**
 * A balancer without affinity: each request goes to the next live replica in turn (the client's
 * session header goes along unchanged).
 */
function roundRobin(replicas: () => readonly Replica[]) {
  let next = 0;
  const seen: string[] = [];
  const fetchVia = (input: string | URL | Request, init?: RequestInit) => {
    const live = replicas();
    const target = live[next++ % live.length] as Replica;
    seen.push(target.name);
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    const base = new URL(target.url);
    url.host = base.host;
    return fetch(url, init);
  };
  return { fetch: fetchVia, seen };
}

async function legacyClient(token: string, via: ReturnType<typeof roundRobin>, url: string) {
  const client = new Client(
    { name: "cluster-test", version: "1.0.0" },
    { versionNegotiation: { mode: "legacy" } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      fetch: via.fetch,
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

const post = (url: string, token: string, body: unknown, session: string) =>
  fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });

describe.skipIf(!hasRedis)("serve --store redis://: several replicas, one Redis", () => {
  let home: string;
  let secretFile: string;
  let redisPort: number;
  let redis: ChildProcess;
  let replicas: Replica[] = [];
  let live: Replica[] = [];

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "mcp-bridge-cluster-"));
    writeFileSync(
      join(home, "mcp.json"),
      JSON.stringify({
        mcpServers: { normal: { command: process.execPath, args: [fixturePath("normal")] } },
      }),
    );
    secretFile = join(home, "cluster.secret");
    writeFileSync(secretFile, randomBytes(32).toString("hex"), { mode: 0o600 });
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    const store = `redis://127.0.0.1:${redisPort}`;
    replicas = await Promise.all(["a", "b", "c"].map((name) => startReplica(home, name, store, secretFile)));
    live = [...replicas];
  }, 90_000);

  afterAll(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await until(() => children.every((c) => c.exitCode !== null || c.signalCode !== null), 10_000).catch(
      () => undefined,
    );
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("a per-minute limit of N admits N calls across three replicas, not 3N", async () => {
    let admitted = 0;
    let refused = 0;
    for (const replica of replicas) {
      await using client = await connect(replica.url, "2026-07-28", TOKENS.limited);
      for (let i = 0; i < PER_MINUTE; i++) {
        try {
          const result = await client.callTool({ name: "normal_add", arguments: { a: i, b: 1 } });
          expect(textOf(result)).toBe(String(i + 1));
          admitted++;
        } catch (error) {
          expect(String(error)).toMatch(/calls per minute/);
          refused++;
        }
      }
    }
    // The bucket refills continuously (one call per 60/N s): a slow run may earn one more.
    expect(admitted).toBeGreaterThanOrEqual(PER_MINUTE);
    expect(admitted).toBeLessThanOrEqual(PER_MINUTE + 1);
    expect(admitted + refused).toBe(3 * PER_MINUTE);
  }, 60_000);

  let session = "";

  it("a 2025-11-25 session opened on one replica is answered by any of them", async () => {
    const via = roundRobin(() => live);
    const client = await legacyClient(TOKENS.alice, via, replicas[0]?.url as string);
    try {
      for (let i = 0; i < 4; i++) {
        const result = await client.callTool({ name: "normal_add", arguments: { a: i, b: 10 } });
        expect(textOf(result)).toBe(String(i + 10));
      }
      session = (client.transport as StreamableHTTPClientTransport).sessionId ?? "";
      expect(session).not.toBe("");
      expect(new Set(via.seen).size).toBe(3);
    } finally {
      // Not closed: the session must outlive this test (a close would DELETE it).
      (client.transport as StreamableHTTPClientTransport).onclose = undefined;
    }
  }, 60_000);

  it("another credential naming that session id is refused on every replica, as for a session that does not exist", async () => {
    const list = { jsonrpc: "2.0", id: 7, method: "tools/list", params: {} };
    for (const replica of replicas) {
      const stolen = await post(replica.url, TOKENS.mallory, list, session);
      expect(stolen.status).toBe(404);
      expect(await stolen.text()).toContain("Session not found");
      const own = await post(replica.url, TOKENS.alice, list, session);
      expect(own.status).toBe(200);
      expect(await own.text()).toContain("normal_add");
    }
  }, 60_000);

  it("a record planted in the store to send a session's requests (and credential) elsewhere is not believed", async () => {
    // Someone who can write Redis, but lacks the cluster secret, points a session at their server.
    const captured: string[] = [];
    const capture = createServer((req, res) => {
      captured.push(req.headers.authorization ?? "");
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    await new Promise<void>((resolve) => capture.listen(0, "127.0.0.1", resolve));
    const redisClient = createClient({ url: `redis://127.0.0.1:${redisPort}` });
    await redisClient.connect();
    try {
      const [opener, other] = [replicas[1] as Replica, replicas[2] as Replica];
      const client = await legacyClient(
        TOKENS.carol,
        roundRobin(() => [opener]),
        opener.url,
      );
      const planted = (client.transport as StreamableHTTPClientTransport).sessionId ?? "";
      (client.transport as StreamableHTTPClientTransport).onclose = undefined;
      const key = `mcp-bridge:session:${createHash("sha256").update(planted).digest("hex")}`;
      const text = (await redisClient.hGet(key, "record")) ?? "";
      expect(text).toContain(opener.url.replace(/\/mcp$/, ""));
      const { port } = capture.address() as AddressInfo;
      const forged = text
        .replace(/"owner":"[^"]*"/, '"owner":"evil"')
        .replace(/"ownerUrl":"[^"]*"/, `"ownerUrl":"http://127.0.0.1:${port}/mcp"`);
      await redisClient.hSet(key, { owner: "evil", record: forged });
      await redisClient.set("mcp-bridge:replica:evil", `http://127.0.0.1:${port}/mcp`, { PX: 60_000 });
      const list = { jsonrpc: "2.0", id: 8, method: "tools/list", params: {} };
      const answer = await post(other.url, TOKENS.carol, list, planted);
      // Not forwarded: the record is no record, so the session is unknown there (the client starts over).
      expect(captured).toEqual([]);
      expect(answer.status).toBe(404);
      // The operator is told once that something else writes to the store.
      await until(() => other.stderr.includes("was refused"));
      expect(other.stderr).not.toContain("carol-token");
    } finally {
      redisClient.destroy();
      capture.close();
    }
  }, 60_000);

  it("once its owner is killed, the session continues on another replica", async () => {
    const owner = replicas.find((r) => r.url === replicas[0]?.url) as Replica;
    owner.child.kill("SIGKILL");
    await until(() => owner.child.signalCode !== null, 10_000);
    live = replicas.filter((r) => r !== owner);
    const call = {
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: { name: "normal_add", arguments: { a: 1, b: 2 } },
    };
    for (const replica of live) {
      const answer = await post(replica.url, TOKENS.alice, call, session);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('"text":"3"');
    }
    // The thief still gets nothing, from the replica that now holds it either.
    for (const replica of live)
      expect((await post(replica.url, TOKENS.mallory, call, session)).status).toBe(404);
  }, 60_000);

  it("Redis down: calls are still served, the gauge says 0 and one warning is printed; Redis back: 1", async () => {
    const [b] = live as [Replica];
    expect(await storeUp(b)).toBe(1);
    const warnings = () => b.stderr.match(/cluster store .* does not answer/g)?.length ?? 0;
    const before = warnings();
    redis.kill("SIGKILL");
    await until(() => redis.signalCode !== null, 10_000);
    await using client = await connect(b.url, "2026-07-28", TOKENS.carol);
    for (let i = 0; i < 3; i++)
      expect(textOf(await client.callTool({ name: "normal_add", arguments: { a: i, b: 0 } }))).toBe(
        String(i),
      );
    await until(async () => (await storeUp(b)) === 0, 10_000);
    for (let i = 0; i < 2; i++)
      expect(textOf(await client.callTool({ name: "normal_add", arguments: { a: i, b: 5 } }))).toBe(
        String(i + 5),
      );
    expect(warnings() - before, b.stderr).toBe(1);
    redis = await startRedis(redisPort);
    await until(async () => (await storeUp(b)) === 1, 15_000);
    expect(textOf(await client.callTool({ name: "normal_add", arguments: { a: 2, b: 2 } }))).toBe("4");
  }, 60_000);
});
