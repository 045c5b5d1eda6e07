/**
 * `npm run bench:gateway [-- --calls N --clients C --direct]`: the stateless gateway scaled out on one
 * machine. Three `mcp-bridge serve --http` replicas on 127.0.0.1, each fronting its own
 * stdio fixture server, behind nginx (Debian package, installed with apt-get when missing; needs
 * root) balancing round-robin. C concurrent MCP clients (default 32) make N tools/call (default 3200):
 *
 *   1. against one replica directly: the single-replica throughput;
 *   2. through nginx to the three replicas: throughput and errors (0 expected);
 *   3. through nginx again, one replica SIGKILLed after a third of the calls: how many calls failed
 *      (those in flight on the killed replica, which must fail with an error, not hang), and that
 *      every call after the kill was answered by one of the two others.
 *
 * Which replica answered is known from the upstream `pid` tool (each replica has its own upstream
 * process). The clients are mcp-bridge itself (one bridge per client); `--sdk-client` uses the plain
 * SDK client instead. `--direct` runs the same with the fixture's own stateless HTTP server as the
 * replicas (no gateway): the baseline of the balancing setup itself. Not part of `npm test`.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startBridge } from "../src/bridge/bridge.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const CLI = join(root, "dist/src/apps/cli/bin.js");
const FIXTURE = join(root, "dist/test/fixtures/servers/normal.js");
const TOKEN = "bench-gateway-token";
const TOKEN_ENV = "MCP_BRIDGE_GATEWAY_TOKENS";

function argValue(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} takes a positive integer`);
  return value;
}

const CALLS = argValue("calls", 3200);
const CLIENTS = argValue("clients", 32);
const REPLICAS = 3;
const DIRECT = process.argv.includes("--direct");
const CALL_TIMEOUT_MS = 15_000;

const work = mkdtempSync(join(tmpdir(), "mcp-bridge-scale-"));
const children: ChildProcess[] = [];

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

// --- nginx ---

/** nginx's path, installing the Debian package first when it is missing. */
function ensureNginx(): string {
  const found = spawnSync("nginx", ["-v"], { stdio: "ignore" });
  if (!found.error) return "nginx";
  if (process.getuid?.() !== 0) {
    throw new Error(
      "nginx is not installed and this is not root: run `apt-get install -y nginx-light` first",
    );
  }
  log("nginx missing: apt-get install nginx-light");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const install = () =>
    spawnSync("apt-get", ["install", "-y", "--no-install-recommends", "nginx-light"], {
      stdio: "inherit",
      env,
    });
  if (install().status !== 0) {
    spawnSync("apt-get", ["update"], { stdio: "inherit", env });
    if (install().status !== 0) throw new Error("apt-get could not install nginx-light");
  }
  return "nginx";
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  await new Promise((done) => server.close(done));
  if (typeof address !== "object" || address === null) throw new Error("no free port");
  return address.port;
}

async function startNginx(replicas: readonly URL[]): Promise<URL> {
  const port = await freePort();
  const prefix = join(work, "nginx");
  mkdirSync(join(prefix, "logs"), { recursive: true });
  const path = replicas[0]?.pathname ?? "/mcp";
  // proxy_next_upstream: a request nginx could not hand to a replica (refused connection: the
  // replica is gone) goes to the next one; a request already sent is never replayed (tools/call is
  // not idempotent), so calls in flight on a dying replica fail with a 502.
  const conf = `
worker_processes 1;
daemon off;
pid ${prefix}/nginx.pid;
error_log ${prefix}/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  upstream gateways {
${replicas.map((url) => `    server ${url.host} max_fails=1 fail_timeout=30s;`).join("\n")}
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://gateways;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_read_timeout 60s;
      proxy_next_upstream error timeout;
    }
  }
}
`;
  const confPath = join(prefix, "nginx.conf");
  writeFileSync(confPath, conf);
  const nginx = spawn(ensureNginx(), ["-p", prefix, "-c", confPath], { stdio: ["ignore", "ignore", "pipe"] });
  children.push(nginx);
  const url = new URL(`http://127.0.0.1:${port}${path}`);
  await waitFor(async () => {
    if (nginx.exitCode !== null) throw new Error(`nginx exited with ${nginx.exitCode}`);
    const response = await fetch(url, { method: "GET" }).catch(() => undefined);
    return response !== undefined;
  }, 10_000);
  return url;
}

// --- replicas ---

interface Replica {
  readonly url: URL;
  readonly process: ChildProcess;
  /** The pid the `pid` tool answers through this replica. */
  upstreamPid: number;
}

async function startReplica(index: number): Promise<Replica> {
  const config = join(work, `mcp-${index}.json`);
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { normal: { command: process.execPath, args: [FIXTURE] } } }),
  );
  const child = DIRECT
    ? spawn(process.execPath, [FIXTURE, "--http", "--stateless"], { stdio: ["ignore", "pipe", "pipe"] })
    : spawn(
        process.execPath, // All clients share one token, so one per-client limit: raised above the client count.
        [CLI, "serve", "--http", "127.0.0.1:0", "--config", config, "--max-calls", "1000"],
        {
          stdio: ["ignore", "pipe", "pipe"],
          env: { ...process.env, [TOKEN_ENV]: TOKEN },
        },
      );
  children.push(child);
  const url = await new Promise<URL>((found, failed) => {
    const timer = setTimeout(() => failed(new Error(`replica ${index} did not print its URL`)), 30_000);
    const scan = (line: string) => {
      const match = /(http:\/\/127\.0\.0\.1:\d+(?:\/[^\s"']*)?)/.exec(line);
      if (match?.[1]) {
        clearTimeout(timer);
        const printed = new URL(match[1]);
        found(printed.pathname === "/" ? new URL("/mcp", printed) : printed);
      }
    };
    for (const stream of [child.stdout, child.stderr]) {
      if (stream) createInterface({ input: stream }).on("line", scan);
    }
    child.once("exit", (code) => failed(new Error(`replica ${index} exited with ${code}`)));
  });
  return { url, process: child, upstreamPid: 0 };
}

// --- clients ---

/** One MCP client of the run: mcp-bridge itself by default, the plain SDK client with --sdk-client. */
interface BenchClient {
  /** Calls the upstream `pid` tool; resolves to the pid it answered. */
  pid(): Promise<number>;
  close(): Promise<void>;
}

const SDK_CLIENT = process.argv.includes("--sdk-client");

function pidOf(result: { content?: unknown; isError?: boolean }): number {
  const first = (result.content as { type: string; text?: string }[] | undefined)?.[0];
  const pid = Number(first?.text);
  if (result.isError || !Number.isInteger(pid))
    throw new Error(`unexpected pid result ${JSON.stringify(result)}`);
  return pid;
}

/** The exposed name of the fixture tool ending in `suffix` (the gateway namespaces tool names). */
function toolNamed(names: readonly string[], suffix: string): string {
  const name = names.find((n) => n === suffix || n.endsWith(`_${suffix}`) || n.endsWith(`/${suffix}`));
  if (!name) throw new Error(`no tool "${suffix}" among ${names.join(", ")}`);
  return name;
}

async function connect(url: URL): Promise<BenchClient> {
  if (SDK_CLIENT) {
    const client = new Client({ name: "scale-bench", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const tool = toolNamed(
      (await client.listTools()).tools.map((t) => t.name),
      "pid",
    );
    return {
      pid: async () =>
        pidOf(await client.callTool({ name: tool, arguments: {} }, { timeout: CALL_TIMEOUT_MS })),
      close: () => client.close(),
    };
  }
  const bridge = await startBridge({
    servers: { scale: { url: url.href, headers: { Authorization: `Bearer ${TOKEN}` } } },
    telemetry: false,
  });
  const tool = toolNamed(
    bridge.tools().map((t) => t.name),
    "pid",
  );
  return {
    pid: async () => pidOf(await bridge.call(tool, {}, { timeout: CALL_TIMEOUT_MS, onError: "throw" })),
    close: () => bridge.close(),
  };
}

interface RunResult {
  readonly seconds: number;
  readonly ok: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly errorSamples: string[];
  /** Failed calls started before the killed replica's process was gone (in flight on it or racing the kill). */
  readonly failedBeforeGone: number;
  /** Failed calls started after the killed replica's process was gone. */
  readonly failedAfterGone: number;
  /** Calls started after the killed replica was gone and answered, per upstream pid. */
  readonly answeredAfterGone: Map<number, number>;
}

/** One line of an error message, without the HTML of nginx's error pages. */
function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 120);
}

/**
 * CLIENTS clients share CALLS calls (each takes the next one until none is left). `kill`, when given,
 * is run as call `kill.call` starts; it resolves once the replica's process has exited, and calls
 * started from then on are tallied apart.
 */
async function run(
  url: URL,
  kill?: { readonly call: number; readonly action: () => Promise<void> },
): Promise<RunResult> {
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => connect(url)));
  let next = 0;
  let ok = 0;
  let errors = 0;
  let timeouts = 0;
  let gone = false;
  let failedBeforeGone = 0;
  let failedAfterGone = 0;
  const errorSamples: string[] = [];
  const answeredAfterGone = new Map<number, number>();
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      while (next < CALLS) {
        const call = next++;
        if (kill && call === kill.call) {
          void kill.action().then(() => {
            gone = true;
          });
        }
        const afterGone = gone;
        try {
          const pid = await client.pid();
          ok++;
          if (afterGone) answeredAfterGone.set(pid, (answeredAfterGone.get(pid) ?? 0) + 1);
        } catch (error) {
          const text = oneLine(error);
          if ((error as { code?: unknown }).code === "TOOL_TIMEOUT" || /timed out|timeout/i.test(text))
            timeouts++;
          else errors++;
          if (kill) {
            if (afterGone) failedAfterGone++;
            else failedBeforeGone++;
          }
          if (errorSamples.length < 2) errorSamples.push(text);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  return {
    seconds,
    ok,
    errors,
    timeouts,
    errorSamples,
    failedBeforeGone,
    failedAfterGone,
    answeredAfterGone,
  };
}

// --- main ---

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error("timed out waiting");
}

function cleanUp(): void {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  rmSync(work, { recursive: true, force: true });
}

/** Whether this build has the gateway command (the replicas run it). */
function gatewayAvailable(): boolean {
  return spawnSync(process.execPath, [CLI, "serve", "--help"], { stdio: "ignore" }).status === 0;
}

async function main(): Promise<void> {
  if (!DIRECT && !gatewayAvailable()) {
    throw new Error(
      "this build has no `mcp-bridge serve` (the gateway): run `npm run bench:gateway -- --direct` for the balancing baseline without it",
    );
  }
  ensureNginx();
  const nginxVersion = spawnSync("nginx", ["-v"], { encoding: "utf8" }).stderr.trim();
  log(
    `${SDK_CLIENT ? "SDK clients" : "mcp-bridge clients"} -> ${DIRECT ? "fixture servers (no gateway)" : "gateway"} x${REPLICAS}, ${CLIENTS} clients, ${CALLS} calls; ${nginxVersion}`,
  );
  const replicas = await Promise.all(Array.from({ length: REPLICAS }, (_, i) => startReplica(i)));
  for (const replica of replicas) {
    const client = await connect(replica.url);
    replica.upstreamPid = await client.pid();
    await client.close();
  }
  const balancer = await startNginx(replicas.map((replica) => replica.url));
  log(
    `replicas: ${replicas.map((r) => `${r.url.host} (upstream pid ${r.upstreamPid})`).join(", ")}; nginx ${balancer.host}`,
  );

  const single = await run(replicas[0]?.url as URL);
  const balanced = await run(balancer);
  const victim = replicas[REPLICAS - 1] as Replica;
  const failover = await run(balancer, {
    call: Math.floor(CALLS / 3),
    action: () =>
      new Promise<void>((exited) => {
        victim.process.once("exit", () => exited());
        victim.process.kill("SIGKILL");
      }),
  });

  const rate = (result: RunResult) => (result.ok / result.seconds).toFixed(0);
  const lines = [
    `one replica direct:      ${rate(single)} calls/s (${single.ok} ok, ${single.errors} errors, ${single.timeouts} timeouts, ${single.seconds.toFixed(2)} s)`,
    `3 replicas behind nginx: ${rate(balanced)} calls/s (${balanced.ok} ok, ${balanced.errors} errors, ${balanced.timeouts} timeouts, ${balanced.seconds.toFixed(2)} s); ${(Number(rate(balanced)) / Number(rate(single))).toFixed(2)}x one replica`,
    `replica killed (SIGKILL) after ${Math.floor(CALLS / 3)} calls: ${failover.ok} ok, ${failover.errors} failed with an error, ${failover.timeouts} timed out`,
    `  failed: ${failover.failedBeforeGone} started before the replica was gone (in flight on it), ${failover.failedAfterGone} started after`,
    `  calls started after it was gone, answered by upstream pid: ${[...failover.answeredAfterGone].map(([pid, count]) => `${pid}${pid === victim.upstreamPid ? " (killed replica)" : ""}=${count}`).join(", ")}`,
  ];
  for (const sample of [...balanced.errorSamples, ...failover.errorSamples])
    lines.push(`  error sample: ${sample}`);
  process.stdout.write(`${lines.join("\n")}\n`);
  // Calls in flight on the killed replica may fail (with an error, never a hang); after it is gone none
  // may fail, and none may be answered by it.
  const ok =
    single.errors + single.timeouts === 0 &&
    balanced.errors + balanced.timeouts === 0 &&
    failover.timeouts === 0 &&
    failover.failedAfterGone === 0 &&
    (failover.answeredAfterGone.get(victim.upstreamPid) ?? 0) === 0;
  process.exitCode = ok ? 0 : 1;
}

process.once("SIGINT", () => {
  cleanUp();
  process.exit(130);
});
try {
  await main();
} catch (error) {
  log(`bench:gateway: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  cleanUp();
}
