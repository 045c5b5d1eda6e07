import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { clusterSecretUnusable } from "../../../errors/gateway-errors.js";
import { isRegularOrAbsent } from "../../../util/private-file.js";

/**
 * Who this gateway process is among the replicas of one cluster: its id (in the store's session
 * records and on forwarded requests), the URL other replicas reach it at, and the secret that signs
 * what replicas forward to each other (see peer-signature.ts).
 */
export interface Replica {
  readonly id: string;
  /** Undefined until listening, when it defaults to the gateway's own URL. */
  readonly advertiseUrl: string | undefined;
  /** Undefined: this replica neither forwards nor accepts forwarded requests. */
  readonly secret: Uint8Array | undefined;
}

/** Shortest cluster secret accepted, in bytes: an HMAC key guessable by brute force is none. */
export const MIN_CLUSTER_SECRET_BYTES = 32;

/** A random replica id: unique per process start, so a restarted replica is a new one. */
export const newReplicaId = () => randomUUID();

/**
 * The cluster secret from a file only this user can read (like an SSH key: a file others may read,
 * another user's file or a symbolic link is refused). Its trimmed text is the key.
 */
export async function readClusterSecret(file: string): Promise<Uint8Array> {
  const { lstat } = await import("node:fs/promises");
  if (!isRegularOrAbsent(file)) throw clusterSecretUnusable({ file, detail: "it is not a regular file" });
  const stat = await lstat(file).catch(() => undefined);
  if (!stat) throw clusterSecretUnusable({ file, detail: "it does not exist" });
  if (process.getuid !== undefined && stat.uid !== process.getuid())
    throw clusterSecretUnusable({ file, detail: `it belongs to uid ${stat.uid}, not to this user` });
  if (process.platform !== "win32" && (stat.mode & 0o077) !== 0)
    throw clusterSecretUnusable({
      file,
      detail: `its mode ${(stat.mode & 0o777).toString(8)} lets others read it (chmod 600 it)`,
    });
  const text = (await readFile(file, "utf8").catch(() => undefined))?.trim();
  if (text === undefined) throw clusterSecretUnusable({ file, detail: "it cannot be read" });
  const secret = new TextEncoder().encode(text);
  if (secret.length < MIN_CLUSTER_SECRET_BYTES)
    throw clusterSecretUnusable({
      file,
      detail: `it holds ${secret.length} bytes, fewer than ${MIN_CLUSTER_SECRET_BYTES} (e.g. openssl rand -hex 32 > FILE)`,
    });
  return secret;
}
