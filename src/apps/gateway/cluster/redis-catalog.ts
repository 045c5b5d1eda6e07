import type { SharedToolLists } from "../../../bridge/tool-lists/shared-tool-lists.js";
import { redisClient } from "../../../util/lazy-modules.js";
import { answerWithin } from "../../../util/wait.js";

/**
 * The warm catalog of `serve --store`: the tool lists replicas saw, in Redis, under a hash of each
 * exact server definition (a replica with another definition for the same name never reads it). Its
 * own connection, opened before the bridge starts (the cluster store's opens with the gateway, after
 * the servers are started). Every command is bounded and never throws: a store that is down or slow
 * only makes a start colder. What is read back is checked by the bridge (bridge/tool-lists/shared-tool-lists.ts).
 */

/** How long a start waits for the store before it starts cold. */
const CONNECT_WAIT_MS = 1_000;
/** Longest a read may take (all servers are read in parallel, once, at start). */
const READ_BUDGET_MS = 500;
const WRITE_BUDGET_MS = 1_000;

const PREFIX = "mcp-bridge:catalog:";
/** `key` is already a SHA-256 (or an HMAC) of the definition (bridge/tool-lists/tool-list-entry.ts). */
const keyOf = (key: string) => `${PREFIX}${key}`;

interface RedisLike {
  connect(): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  getRange(key: string, start: number, end: number): Promise<unknown>;
  set(key: string, value: string, options: { PX: number }): Promise<unknown>;
  destroy(): void;
}

export interface RedisCatalog extends SharedToolLists {
  close(): void;
}

/** Bounded `run`: its answer, or undefined when late or failed. */
async function bounded<T>(run: () => Promise<T>, budgetMs: number): Promise<T | undefined> {
  const answer = await answerWithin(run, budgetMs);
  return answer.kind === "answered" ? answer.value : undefined;
}

/**
 * The warm catalog at `url` (a redis:// URL); one whose store cannot be reached answers nothing.
 * With the cluster secret, entries are named by an HMAC under it (see `SharedToolLists.keySecret`).
 */
export async function connectRedisCatalog(url: string, keySecret?: Uint8Array): Promise<RedisCatalog> {
  // Without the optional `redis` package the gateway cannot start with a store: said, not a cold catalog.
  const { createClient } = await redisClient();
  let client: RedisLike;
  try {
    client = createClient({
      url,
      disableOfflineQueue: true,
      socket: {
        connectTimeout: 1_000,
        reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000),
      },
    }) as unknown as RedisLike;
  } catch {
    // A URL the client refuses: the gateway's own check reports it.
    return { get: async () => undefined, set: () => undefined, close: () => undefined, keySecret };
  }
  // Errors are the cluster store's to report (it warns once per outage); here they only mean "cold".
  client.on("error", () => undefined);
  let closed = false;
  await bounded(() => client.connect(), CONNECT_WAIT_MS);
  return {
    keySecret,
    async get(key, maxBytes) {
      if (closed) return undefined;
      const text = await bounded(() => client.getRange(keyOf(key), 0, maxBytes - 1), READ_BUDGET_MS);
      return typeof text === "string" && text.length > 0 ? text : undefined;
    },
    set(key, text, ttlMs) {
      if (closed || !(ttlMs > 0)) return;
      void bounded(() => client.set(keyOf(key), text, { PX: Math.ceil(ttlMs) }), WRITE_BUDGET_MS);
    },
    close() {
      if (closed) return;
      closed = true;
      client.destroy();
    },
  };
}
