/**
 * What the replicas of one gateway share (see redis-store.ts): a contract with no Redis in it, so
 * the gateway's code depends on it and only `--store` loads the client.
 */

/** A 2025-11-25 session as the store knows it: its owner, and what rebuilds it on another replica. */
export interface SessionRecord {
  /** The owner replica's id and the URL it is reached at. */
  readonly owner: string;
  readonly ownerUrl: string;
  /** SHA-256 of the identity (credential) that opened it: another credential never continues it. */
  readonly identityHash: string;
  /** The client's `initialize` params: protocol version, capabilities, client info. */
  readonly init: Record<string, unknown>;
  /** The level the client set with `logging/setLevel`, if any. */
  readonly logLevel: string | undefined;
  /** Resource URIs the client subscribed to. */
  readonly subscriptions: readonly string[];
}

/** A cluster-wide per-minute budget's answer: admitted, or how long until a call is (ms). */
export type BudgetAnswer = { readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number };

export interface ClusterStore {
  /** Whether the store answers now; while it does not, every replica works alone. */
  readonly up: boolean;
  /** Spends one call of `client`'s per-minute budget; undefined: the store did not answer (decide locally). */
  spendCall(client: string, perMinute: number): Promise<BudgetAnswer | undefined>;
  /** Gives back a call `spendCall` admitted but that never ran (best effort: a store down keeps it spent). */
  refundCall(client: string, perMinute: number): Promise<void>;
  /** Session `id`'s record; undefined when absent or the store did not answer. */
  session(id: string): Promise<SessionRecord | undefined>;
  /** Writes session `id`'s record, to expire after `ttlMs` unless touched. */
  saveSession(id: string, record: SessionRecord, ttlMs: number): Promise<void>;
  /** Makes `replica` session `id`'s owner if `previous` still is; false when another replica was faster. */
  claimSession(id: string, previous: string, record: SessionRecord, ttlMs: number): Promise<boolean>;
  /** Extends session `id`'s life, if `owner` still owns it. */
  touchSession(id: string, owner: string, ttlMs: number): Promise<void>;
  /** Forgets session `id`, if `owner` still owns it. */
  dropSession(id: string, owner: string): Promise<void>;
  /** Whether replica `id` is alive (its heartbeat); undefined when the store did not answer. */
  replicaAlive(id: string): Promise<boolean | undefined>;
  close(): Promise<void>;
}
