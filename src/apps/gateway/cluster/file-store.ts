import { createHash, randomBytes } from "node:crypto";
import { readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { stateDirUnusable } from "../../../errors/gateway-errors.js";
import { readSecretFile } from "../../../util/private-file.js";
import { ensurePrivateDir, writeFileExclusive } from "../../../util/private-path.js";
import type { ClusterStore, SessionRecord } from "./cluster-store.js";
import { openSessionRecord, sealSessionRecord } from "./session-record.js";

/**
 * The store of a single gateway that must survive its own restart (`serve --state-dir`): the session
 * records the cluster store holds (session-record.ts, signed the same way), kept as files in a private
 * folder, so a gateway killed with `kill -9` and started again continues every session it issued
 * within its idle time (session-ownership.ts rebuilds each on its next request: its `initialize`, log
 * level and subscriptions). Nothing else of a cluster: call budgets stay local, no peer is forwarded to.
 *
 * One gateway per folder: this gateway is the only replica alive, so a record of any other owner is a
 * record of a previous run of it, continued here. The folder is created 0700 (an existing one must be
 * this user's and closed to others); each record is one 0600 file named by the SHA-256 of its session
 * id, written whole (a new file created exclusively, then renamed over the old: a `kill -9` mid-write
 * leaves the old record or the new one, never a mix). Records are signed with the cluster secret when
 * one is given, else with a key kept in the folder (made once, 0600), so a file put there by anything
 * but the gateway is no record. Expired records are removed at start and as they are read.
 */

const KEY_FILE = "state.key";
const SESSIONS = "sessions";

export interface FileStoreOptions {
  readonly dir: string;
  /** Signs the records (the cluster secret); default a key kept in the folder. */
  readonly secret?: Uint8Array | undefined;
  /** This gateway's replica id: the only owner alive. */
  readonly replicaId: string;
}

export function openFileStore(options: FileStoreOptions): ClusterStore {
  const dir = ensurePrivateDir(options.dir, { what: "gateway state folder", strict: true });
  const sessions = ensurePrivateDir(join(dir, SESSIONS), {
    what: "gateway session records folder",
    strict: true,
  });
  const secret = options.secret ?? folderKey(dir);
  const fileOf = (id: string) => join(sessions, createHash("sha256").update(id).digest("hex"));

  const read = (id: string): { record: SessionRecord; expiresAt: number } | undefined => {
    const file = fileOf(id);
    const text = readSecretFile(file);
    if (!text.ok) return undefined;
    const newline = text.text.indexOf("\n");
    const expiresAt = Number(text.text.slice(0, newline));
    if (newline < 0 || !(expiresAt > Date.now())) {
      rmSync(file, { force: true });
      return undefined;
    }
    const record = openSessionRecord(id, text.text.slice(newline + 1), secret);
    return record && { record, expiresAt };
  };
  const write = (id: string, record: SessionRecord, expiresAt: number) =>
    writeWhole(fileOf(id), `${expiresAt}\n${sealSessionRecord(id, record, secret)}`);

  sweep(sessions);
  return {
    up: true,
    spendCall: async () => undefined,
    refundCall: async () => {},
    session: async (id) => read(id)?.record,
    saveSession: async (id, record, ttlMs) => write(id, record, Date.now() + ttlMs),
    async claimSession(id, previous, record, ttlMs) {
      if (read(id)?.record.owner !== previous) return false;
      write(id, record, Date.now() + ttlMs);
      return true;
    },
    async touchSession(id, owner, ttlMs) {
      const entry = read(id);
      if (entry?.record.owner === owner) write(id, entry.record, Date.now() + ttlMs);
    },
    async dropSession(id, owner) {
      if (read(id)?.record.owner === owner) rmSync(fileOf(id), { force: true });
    },
    replicaAlive: async (id) => id === options.replicaId,
    close: async () => {},
  };
}

/** The folder's signing key: read, or made once (exclusively, 0600) when absent. */
function folderKey(dir: string): Uint8Array {
  const file = join(dir, KEY_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    const read = readSecretFile(file);
    if (read.ok && /^[0-9a-f]{64}$/.test(read.text.trim())) return Buffer.from(read.text.trim(), "hex");
    if (read.ok)
      throw stateDirUnusable({ dir, detail: `${KEY_FILE} does not hold a key this gateway wrote` });
    if (!read.problem.includes("ENOENT"))
      throw stateDirUnusable({ dir, detail: `${KEY_FILE}: ${read.problem}` });
    try {
      writeFileExclusive(file, `${randomBytes(32).toString("hex")}\n`);
    } catch (error) {
      // Another gateway made it meanwhile: read theirs.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  throw stateDirUnusable({ dir, detail: `${KEY_FILE} could not be made` });
}

/** Writes a record whole: a new file (exclusive, 0600) renamed over the old one. */
function writeWhole(file: string, text: string): void {
  const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileExclusive(temporary, text);
  renameSync(temporary, file);
}

/** Removes expired records and temporary files a killed gateway left. */
function sweep(sessions: string): void {
  const now = Date.now();
  for (const name of readdirSync(sessions)) {
    const file = join(sessions, name);
    if (name.endsWith(".tmp")) {
      rmSync(file, { force: true });
      continue;
    }
    const text = readSecretFile(file);
    const expiresAt = text.ok ? Number(text.text.slice(0, text.text.indexOf("\n"))) : 0;
    if (!(expiresAt > now)) rmSync(file, { force: true });
  }
}
