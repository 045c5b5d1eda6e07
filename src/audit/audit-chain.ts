import { createHash } from "node:crypto";

/**
 * The line format of the audit log: one JSON object per line, whose `prev` is the SHA-256 of the
 * previous line (as written, without its newline) and whose last field `hash` is the SHA-256 of the
 * line up to that field (closed with `}`). An edit breaks the line's own `hash`; a deleted, inserted
 * or moved line breaks the next line's `prev`; `seq` counts records across rotated files. The first
 * record of a log has `seq` 1 and a `prev` of 64 zeros; the first record of a file begun by rotation
 * says `"rotated": true` and chains to the last record of the file before it.
 */

export const GENESIS = "0".repeat(64);

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** A record as a line (no newline): its fields, then `prev`, then its own `hash`. */
export function chainLine(record: Record<string, unknown>, prev: string): string {
  const body = JSON.stringify({ ...record, prev });
  return `${body.slice(0, -1)},"hash":"${sha256(body)}"}`;
}

const HASH_TAIL = /,"hash":"([0-9a-f]{64})"\}$/;

export interface LineFacts {
  readonly seq: number | undefined;
  readonly prev: string | undefined;
  readonly rotated: boolean;
}

/** The line's chain fields, or why the line is not a sound record by itself. */
export function readLine(line: string): LineFacts | { readonly problem: string } {
  const tail = HASH_TAIL.exec(line);
  if (!tail) return { problem: "it has no hash at its end (not an audit record, or cut short)" };
  const body = `${line.slice(0, tail.index)}}`;
  if (sha256(body) !== tail[1]) return { problem: "it was edited: its content does not match its hash" };
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { problem: "it is not valid JSON" };
  }
  const seq = typeof record.seq === "number" ? record.seq : undefined;
  const prev = typeof record.prev === "string" ? record.prev : undefined;
  return { seq, prev, rotated: record.rotated === true };
}
