import { createHash } from "node:crypto";
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { LegacySessions, SessionInstance, SessionObserver } from "../identity/legacy-sessions.js";
import type { ClusterStore, SessionRecord } from "./cluster-store.js";
import type { Placement, SessionPlacement } from "./session-placement.js";

export interface SessionOwnershipOptions<I extends SessionInstance> {
  readonly store: ClusterStore;
  readonly replica: () => { readonly id: string; readonly advertiseUrl: string };
  /** The gateway's idle time for a session (0: never): a record outlives it by a minute. */
  readonly sessionIdleMs: number;
  readonly newServer: (auth: AuthInfo | undefined) => I;
}

/** A record lasts this long past its session's idle time (its owner may be slow to say it ended). */
const RECORD_MARGIN_MS = 60_000;
/** A record's longest life when sessions never idle out, refreshed by its requests. */
const LONGEST_RECORD_MS = 24 * 60 * 60_000;

export const identityHash = (identity: string) => createHash("sha256").update(identity).digest("hex");

/**
 * 2025-11-25 sessions across the replicas. The owner records each session in the store (its owner's
 * id and URL, the hash of its credential's identity, its `initialize` params, log level and
 * subscriptions) and keeps the record alive while the session is; another replica receiving a request
 * for it forwards it to the owner while the owner lives, and rebuilds the session from the record
 * once it is gone. A request with another credential is answered as for a session that does not exist.
 */
export function sessionOwnership<I extends SessionInstance>(options: SessionOwnershipOptions<I>) {
  const { store } = options;
  const ttlMs =
    options.sessionIdleMs > 0 && options.sessionIdleMs <= LONGEST_RECORD_MS
      ? options.sessionIdleMs + RECORD_MARGIN_MS
      : LONGEST_RECORD_MS;
  const touchEveryMs = Math.min(RECORD_MARGIN_MS, ttlMs / 4);
  /** The records of the sessions this replica owns: the truth the store mirrors. */
  const owned = new Map<string, { record: SessionRecord; touchedAt: number }>();
  const restoring = new Map<string, Promise<void>>();
  let sessions: LegacySessions<I> | undefined;

  const save = (id: string): Promise<void> | undefined => {
    const entry = owned.get(id);
    return entry ? store.saveSession(id, entry.record, ttlMs) : undefined;
  };
  const update = (id: string, change: (record: SessionRecord) => SessionRecord) => {
    const entry = owned.get(id);
    if (!entry) return;
    entry.record = change(entry.record);
    void save(id);
  };

  const observer: SessionObserver = {
    opened(id, identity, init) {
      const me = options.replica();
      owned.set(id, {
        record: {
          owner: me.id,
          ownerUrl: me.advertiseUrl,
          identityHash: identityHash(identity),
          init,
          logLevel: undefined,
          subscriptions: [],
        },
        touchedAt: Date.now(),
      });
      return save(id);
    },
    message(id, message) {
      const { method, params } = message as { method?: unknown; params?: { level?: unknown; uri?: unknown } };
      if (method === "logging/setLevel" && typeof params?.level === "string") {
        const level = params.level;
        update(id, (r) => ({ ...r, logLevel: level }));
      } else if (method === "resources/subscribe" && typeof params?.uri === "string") {
        const uri = params.uri;
        update(id, (r) => ({ ...r, subscriptions: [...new Set([...r.subscriptions, uri])] }));
      } else if (method === "resources/unsubscribe" && typeof params?.uri === "string") {
        const uri = params.uri;
        update(id, (r) => ({ ...r, subscriptions: r.subscriptions.filter((u) => u !== uri) }));
      }
    },
    touched(id) {
      const entry = owned.get(id);
      if (!entry || Date.now() - entry.touchedAt < touchEveryMs) return;
      entry.touchedAt = Date.now();
      void store.touchSession(id, entry.record.owner, ttlMs);
    },
    ended(id) {
      const entry = owned.get(id);
      owned.delete(id);
      if (entry) void store.dropSession(id, entry.record.owner);
    },
  };

  const takeOver = async (id: string, record: SessionRecord, auth: AuthInfo | undefined): Promise<void> => {
    const running = restoring.get(id);
    if (running) return running;
    const me = options.replica();
    const claimed = { ...record, owner: me.id, ownerUrl: me.advertiseUrl };
    const restore = (async () => {
      // Only one replica continues it; one that lost the race answers 404 and its client initializes again.
      if (!(await store.claimSession(id, record.owner, claimed, ttlMs))) return;
      await sessions?.restore(id, auth, () => options.newServer(auth), {
        init: record.init,
        requests: [
          ...(record.logLevel ? [{ method: "logging/setLevel", params: { level: record.logLevel } }] : []),
          ...record.subscriptions.map((uri) => ({ method: "resources/subscribe", params: { uri } })),
        ],
      });
    })().finally(() => restoring.delete(id));
    restoring.set(id, restore);
    return restore;
  };

  const placement: SessionPlacement = {
    async locate(id, identity, auth, fromPeer): Promise<Placement> {
      const waiting = restoring.get(id);
      if (waiting) await waiting;
      if (!sessions || sessions.holds(id)) return { kind: "here" };
      const record = await store.session(id);
      // Unknown, or another credential's: the local path answers 404, exactly as without a store.
      if (!record || record.identityHash !== identityHash(identity)) return { kind: "here" };
      if (record.owner !== options.replica().id && !fromPeer) {
        // While the store cannot say whether the owner lives, it is tried (a dead one fails to connect).
        if ((await store.replicaAlive(record.owner)) !== false)
          return { kind: "peer", url: record.ownerUrl, record };
      }
      await takeOver(id, record, auth);
      return { kind: "here" };
    },
    takeOver,
  };

  return {
    observer,
    placement,
    /** The sessions it watches (they are built with `observer`, hence after it). */
    attach(given: LegacySessions<I>) {
      sessions = given;
    },
    /** After a store outage: records written meanwhile are written again. */
    rewriteAll() {
      for (const id of owned.keys()) void save(id);
    },
  };
}
