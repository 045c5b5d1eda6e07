/** A throwaway redis-server on 127.0.0.1 (no persistence), for the cluster store of a run. */
import { randomUUID } from "node:crypto";
import { connect } from "node:net";
import { freePort, type ProcessGroup, waitFor } from "./processes.js";

export interface LocalRedis {
  readonly url: string;
  readonly pid: number;
}

/** Tries at new ports when another process took the free port first. */
const PORT_ATTEMPTS = 3;

/**
 * Whether the redis at `port` is the one started with `marker` as its dump file name (one short TCP
 * exchange, bounded). A PING alone is answered by any Redis: when another run's server took the port
 * first (the free port is only free until someone binds it), ours exits and two clusters would share
 * one store, each seeing the other's budgets and heartbeats.
 */
function ours(port: number, marker: string): Promise<boolean> {
  return new Promise((answer) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    const done = (ok: boolean) => {
      socket.destroy();
      answer(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("CONFIG GET dbfilename\r\n"));
    socket.on("data", (data) => {
      received += data.toString();
      if (received.includes(marker)) done(true);
      else if (received.startsWith("-") || received.length > 4_096) done(false);
      else if (/^\*2\r\n(\$\d+\r\n[^\r]*\r\n){2}$/.test(received)) done(false);
    });
  });
}

export async function startRedis(group: ProcessGroup): Promise<LocalRedis> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const marker = `mcp-bridge-bench-${randomUUID()}.rdb`;
    const redis = group.spawn("redis-server", [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      group.work,
      "--dbfilename",
      marker,
    ]);
    try {
      await waitFor(
        "redis-server to answer",
        async () => {
          if (redis.exitCode !== null) throw new Error(`redis-server exited with ${redis.exitCode}`);
          return ours(port, marker);
        },
        10_000,
      );
      return { url: `redis://127.0.0.1:${port}`, pid: redis.pid ?? 0 };
    } catch (error) {
      redis.kill("SIGKILL");
      if (attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}
