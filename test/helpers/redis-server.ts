import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer, connect as tcpConnect } from "node:net";
import { until } from "./wait.js";

/** Whether Debian's redis-server is installed (tests that need it skip, saying so, when it is not). */
export const hasRedis = spawnSync("redis-server", ["--version"]).status === 0;

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Whether the Redis at `port` is the one started with `marker` as its dump file name. A PING alone is
 * answered by any Redis: when another test's server took the free port first, ours exits and two
 * test files would share one store.
 */
function ours(port: number, marker: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, "127.0.0.1");
    let received = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on("error", () => done(false));
    socket.on("data", (data) => {
      received += data.toString();
      if (received.includes(marker)) done(true);
      else if (received.startsWith("-") || received.length > 4_096) done(false);
      else if (/^\*2\r\n(\$\d+\r\n[^\r]*\r\n){2}$/.test(received)) done(false);
    });
    socket.on("connect", () => socket.write("CONFIG GET dbfilename\r\n"));
  });
}

export interface RedisServer {
  readonly url: string;
  readonly child: ChildProcess;
  /** Kills the server (idempotent). */
  stop(): void;
}

/**
 * A fresh redis-server on 127.0.0.1, no persistence, on `port` (a free one by default; a test that
 * restarts "the same" Redis passes the old one's); `stop()` it in afterAll.
 */
export async function startRedisServer(port?: number): Promise<RedisServer> {
  // A port of our choosing may be taken by someone else before redis binds it: then try another.
  for (let attempt = 1; ; attempt++) {
    const listening = port ?? (await freePort());
    const marker = `mcp-bridge-test-${randomUUID()}.rdb`;
    const child = spawn(
      "redis-server",
      [
        "--port",
        String(listening),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dbfilename",
        marker,
      ],
      { stdio: "ignore" },
    );
    const stop = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    };
    try {
      await until(() => {
        if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
        return ours(listening, marker);
      }, 10_000);
      return { url: `redis://127.0.0.1:${listening}`, child, stop };
    } catch (error) {
      stop();
      if (port !== undefined || attempt >= 3) throw error;
    }
  }
}
