/** A throwaway redis-server on 127.0.0.1 (no persistence), for the cluster store of a run. */
import { connect } from "node:net";
import { freePort, type ProcessGroup, waitFor } from "./processes.js";

export interface LocalRedis {
  readonly url: string;
  readonly pid: number;
}

/** Whether redis answers PING at `port` (one short TCP exchange, bounded). */
function pong(port: number): Promise<boolean> {
  return new Promise((answer) => {
    const socket = connect(port, "127.0.0.1");
    const done = (ok: boolean) => {
      socket.destroy();
      answer(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => done(data.toString().startsWith("+PONG")));
  });
}

export async function startRedis(group: ProcessGroup): Promise<LocalRedis> {
  const port = await freePort();
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
  ]);
  await waitFor(
    "redis-server to answer PING",
    async () => {
      if (redis.exitCode !== null) throw new Error(`redis-server exited with ${redis.exitCode}`);
      return pong(port);
    },
    10_000,
  );
  return { url: `redis://127.0.0.1:${port}`, pid: redis.pid ?? 0 };
}
