import { type ChildProcess, spawn, spawnSync } from "node:child_process";
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

/** Whether a Redis at `port` answers PING. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, "127.0.0.1");
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on("error", () => done(false));
    socket.on("data", (data) => done(data.toString().startsWith("+PONG")));
    socket.on("connect", () => socket.write("PING\r\n"));
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
  port ??= await freePort();
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  try {
    const listening = port;
    await until(() => pong(listening), 10_000);
  } catch (error) {
    stop();
    throw error;
  }
  return { url: `redis://127.0.0.1:${port}`, child, stop };
}
