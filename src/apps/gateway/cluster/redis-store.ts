import { createHash } from "node:crypto";
import { redisClient } from "../../../util/lazy-modules.js";
import type { Logger } from "../../../util/logger.js";
import { answerWithin, waitAtMost } from "../../../util/wait.js";
import type { BudgetAnswer, ClusterStore } from "./cluster-store.js";
import { DROP_SESSION, REFUND_CALL, SPEND_CALL, TOUCH_SESSION, WRITE_SESSION } from "./redis-scripts.js";
import { openSessionRecord, sealSessionRecord } from "./session-record.js";

/** Longest a store command may take before the replica decides alone (a hung Redis must not hang calls). */
export const STORE_COMMAND_BUDGET_MS = 200;
/**
 * Longest a session lookup or a session's first record may take: where a budget's fallback (this
 * replica's own bucket) costs nothing, a session lookup's fallback is a 404 that makes the client start
 * over, so it may wait longer; and a record written late is one the client's next request, sent to any
 * replica, may not find (its initialize answer waits for the write).
 */
export const STORE_LOOKUP_BUDGET_MS = 1_000;
/**
 * Late answers in a row that mark the store down. One late answer may be this process's own busy
 * event loop (a GC pause, a loaded machine) rather than the store: that request decides alone, but
 * the replica keeps asking; a connection error marks it down at once.
 */
const LATE_ANSWERS_DOWN = 3;
/** How often a replica says it is alive, and how long that lasts. */
const HEARTBEAT_EVERY_MS = 3_000;
const HEARTBEAT_TTL_MS = 10_000;
/** While the store is down, how often it is asked again. */
const PROBE_EVERY_MS = 1_000;
/** How long a starting replica waits for its first connection before it serves alone. */
const START_WAIT_MS = 5_000;

const PREFIX = "mcp-bridge:";
const sha = (text: string) => createHash("sha1").update(text).digest("hex");
const hashed = (text: string) => createHash("sha256").update(text).digest("hex");

/** The node-redis client, as far as the store uses it (loaded lazily: only `--store` pays for it). */
interface RedisLike {
  connect(): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  hGet(key: string, field: string): Promise<string | null | undefined>;
  set(key: string, value: string, options: { PX: number }): Promise<unknown>;
  del(key: string): Promise<unknown>;
  exists(key: string): Promise<number>;
  ping(): Promise<unknown>;
  destroy(): void;
}

export interface RedisStoreOptions {
  readonly url: string;
  readonly replicaId: string;
  /** This replica's advertised URL (its heartbeat's value), known once listening. */
  readonly advertiseUrl: () => string;
  readonly logger: Logger;
  /** Called when the store answers again after an outage (records written meanwhile are re-written). */
  readonly onBack?: () => void;
  /**
   * The cluster secret: session records are authenticated with it (see session-record.ts). Required,
   * though it may be undefined (`insecureStore`): a caller that forgets it must not get unsigned records.
   */
  readonly secret: Uint8Array | undefined;
}

/**
 * The cluster store on Redis (or Valkey). Every command is bounded by STORE_COMMAND_BUDGET_MS; a
 * failure or a timeout marks the store down (one warning), after which every replica decides alone
 * (its own budgets, its own sessions) without asking until a probe gets an answer again.
 */
export async function connectRedisStore(options: RedisStoreOptions): Promise<ClusterStore> {
  const { createClient } = await redisClient();
  const client = createClient({
    url: options.url,
    // Commands fail at once while disconnected (no queue to wait in); reconnecting is the client's job.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 1_000,
      reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000),
    },
  }) as unknown as RedisLike;
  let up = false;
  let closed = false;
  let warned = false;
  const down = (reason: string) => {
    if (closed) return;
    const was = up;
    up = false;
    if (was || !warned) {
      warned = true;
      options.logger.warn(
        `The cluster store ${redactedUrl(options.url)} does not answer (${reason}): this replica applies its own limits and keeps its own sessions until it is back.`,
        { event: "store-down" },
      );
    }
  };
  const back = () => {
    if (up || closed) return;
    up = true;
    if (warned) options.logger.info(`The cluster store ${redactedUrl(options.url)} answers again.`);
    options.onBack?.();
  };
  let refusedOnce = false;
  /** A record that is no replica's: said once (a planted one is believed by no replica, and costs a 404). */
  const refused = () => {
    if (refusedOnce) return;
    refusedOnce = true;
    options.logger.warn(
      `A session record in the cluster store ${redactedUrl(options.url)} was refused: it is not one a replica with this replica's cluster secret wrote (or not well formed), so its session is answered as unknown. Either something else writes to this store (keep it private to the replicas), or the replicas were given different --cluster-secret-file contents.`,
      { event: "store-record-refused" },
    );
  };
  client.on("error", (error) => down(errorCode(error)));
  client.on("end", () => down("connection closed"));
  /** `run`'s answer within the budget; undefined (and the store marked down) otherwise. */
  let lateInARow = 0;
  const bounded = async <T>(
    run: () => Promise<T>,
    force = false,
    budgetMs = STORE_COMMAND_BUDGET_MS,
  ): Promise<T | undefined> => {
    if ((!up && !force) || closed) return undefined;
    const answer = await answerWithin(run, budgetMs);
    if (answer.kind === "late") {
      lateInARow++;
      if (lateInARow >= LATE_ANSWERS_DOWN)
        down(`no answer within ${budgetMs} ms, ${lateInARow} times in a row`);
      return undefined;
    }
    if (answer.kind === "failed") {
      down(errorCode(answer.error));
      return undefined;
    }
    lateInARow = 0;
    return answer.value;
  };
  const shas = new Map<string, string>();
  /** EVALSHA, loading the script with EVAL when Redis does not know it yet (after a restart too). */
  const script = (source: string, keys: string[], args: string[], budgetMs = STORE_COMMAND_BUDGET_MS) =>
    bounded(
      async () => {
        let digest = shas.get(source);
        if (!digest) {
          digest = sha(source);
          shas.set(source, digest);
        }
        try {
          return await client.evalSha(digest, { keys, arguments: args });
        } catch (error) {
          if (!String((error as Error).message).startsWith("NOSCRIPT")) throw error;
          return client.eval(source, { keys, arguments: args });
        }
      },
      false,
      budgetMs,
    );
  const probe = async () => {
    if ((await bounded(() => client.ping(), true)) !== undefined) back();
  };
  const heartbeat = () =>
    bounded(() =>
      client.set(replicaKey(options.replicaId), options.advertiseUrl(), { PX: HEARTBEAT_TTL_MS }),
    );
  const timer = setInterval(
    () => {
      if (up) void heartbeat();
      else void probe();
    },
    Math.min(HEARTBEAT_EVERY_MS, PROBE_EVERY_MS),
  );
  timer.unref();
  // A store down at start is no reason not to serve: the probe finds it once it is there.
  const connecting = client.connect().catch(() => undefined);
  await waitAtMost(connecting, START_WAIT_MS);
  await probe();
  if (up) await heartbeat();
  else down("no connection at start");

  return {
    get up() {
      return up;
    },
    async spendCall(clientKey, perMinute): Promise<BudgetAnswer | undefined> {
      const reply = await script(SPEND_CALL, [budgetKey(clientKey)], [String(perMinute)]);
      if (!Array.isArray(reply)) return undefined;
      return Number(reply[0]) === 1 ? { ok: true } : { ok: false, retryAfterMs: Number(reply[1]) };
    },
    async refundCall(clientKey, perMinute) {
      await script(REFUND_CALL, [budgetKey(clientKey)], [String(perMinute)]);
    },
    async session(id) {
      const text = await bounded(() => client.hGet(sessionKey(id), "record"), false, STORE_LOOKUP_BUDGET_MS);
      if (typeof text !== "string") return undefined;
      const record = openSessionRecord(id, text, options.secret);
      if (!record) refused();
      return record;
    },
    async saveSession(id, record, ttlMs) {
      await script(
        WRITE_SESSION,
        [sessionKey(id)],
        [record.owner, record.owner, sealSessionRecord(id, record, options.secret), String(ttlMs)],
        STORE_LOOKUP_BUDGET_MS,
      );
    },
    async claimSession(id, previous, record, ttlMs) {
      const reply = await script(
        WRITE_SESSION,
        [sessionKey(id)],
        [record.owner, previous, sealSessionRecord(id, record, options.secret), String(ttlMs)],
      );
      return Number(reply) === 1;
    },
    async touchSession(id, owner, ttlMs) {
      await script(TOUCH_SESSION, [sessionKey(id)], [owner, String(ttlMs)]);
    },
    async dropSession(id, owner) {
      await script(DROP_SESSION, [sessionKey(id)], [owner]);
    },
    async replicaAlive(id) {
      const count = await bounded(() => client.exists(replicaKey(id)), false, STORE_LOOKUP_BUDGET_MS);
      return count === undefined ? undefined : count > 0;
    },
    async close() {
      if (closed) return;
      // This replica is gone at once: its sessions are continued elsewhere without waiting for the heartbeat.
      if (up) await bounded(() => client.del(replicaKey(options.replicaId)));
      closed = true;
      clearInterval(timer);
      client.destroy();
    },
  };
}

const budgetKey = (client: string) => `${PREFIX}budget:${hashed(client)}`;
const sessionKey = (id: string) => `${PREFIX}session:${hashed(id)}`;
const replicaKey = (id: string) => `${PREFIX}replica:${id}`;

/** The store's URL without its password (a `redis://:PASSWORD@host` URL is common). */
export function redactedUrl(url: string): string {
  const parsed = URL.parse(url);
  if (!parsed) return "(invalid URL)";
  if (parsed.password) parsed.password = "***";
  return parsed.href;
}

/** A short reason: an errno code, or the client's own message (Redis's errors quote no data). */
function errorCode(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string") return code;
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/[^\x20-\x7e]/g, " ").slice(0, 80) || "error";
}
