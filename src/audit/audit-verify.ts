import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { GENESIS, readLine, sha256 } from "./audit-chain.js";

/**
 * `mcp-bridge audit verify FILE...`: walks the chain through the files, oldest first (rotated files
 * `audit.2.jsonl`, `audit.1.jsonl`, then `audit.jsonl`, whatever order they were given in), and names
 * the first line where it breaks. What a chain cannot show: records cut off the end of the newest
 * file, and whole rotated files removed from before the oldest one given (the first record then says
 * where the chain begins).
 */

export interface AuditProblem {
  readonly file: string;
  /** 1-based line number in `file`. */
  readonly line: number;
  readonly problem: string;
}

export interface AuditReport {
  readonly records: number;
  /** The `seq` of the first record, when the chain continues a rotated file that was not given. */
  readonly startsAt: number | undefined;
  readonly problems: readonly AuditProblem[];
}

/** The rotation number of `audit.3.jsonl` (3); 0 for the current file. */
function rotationOf(file: string): number {
  const match = /\.(\d+)(\.[^./]*)?$/.exec(basename(file));
  return match ? Number(match[1]) : 0;
}

/** Oldest first: the highest rotation number first, the current file last; ties keep the given order. */
export function chainOrder(files: readonly string[]): string[] {
  return files
    .map((file, index) => ({ file, index, rotation: rotationOf(file) }))
    .sort((a, b) => b.rotation - a.rotation || a.index - b.index)
    .map((entry) => entry.file);
}

export function verifyAuditFiles(
  files: readonly string[],
  read: (file: string) => string = (file) => readFileSync(file, "utf8"),
): AuditReport {
  const problems: AuditProblem[] = [];
  let previous: { hash: string; seq: number | undefined } | undefined;
  let records = 0;
  let startsAt: number | undefined;
  for (const file of chainOrder(files)) {
    const text = read(file);
    const lines = text.split("\n");
    if (lines.at(-1) === "") lines.pop();
    else if (lines.length > 0)
      problems.push({ file, line: lines.length, problem: "its last line is cut short (no newline)" });
    for (const [at, line] of lines.entries()) {
      const number = at + 1;
      const facts = readLine(line);
      const fail = (problem: string) => problems.push({ file, line: number, problem });
      if ("problem" in facts) fail(facts.problem);
      else if (previous === undefined) {
        if (facts.seq === 1 && facts.prev !== GENESIS) fail("the first record does not start a chain");
        else if (facts.seq !== 1 && !facts.rotated)
          fail("the records before it are missing (the log does not start here)");
        else if (facts.seq !== 1) startsAt = facts.seq;
      } else if (facts.prev !== previous.hash) {
        fail(
          `the record before it is missing, moved or changed (its prev does not match line ${number - 1 || "the end of the previous file"})`,
        );
      } else if (previous.seq !== undefined && facts.seq !== previous.seq + 1) {
        fail(`its seq is ${facts.seq}, not ${previous.seq + 1}`);
      }
      records++;
      previous = { hash: sha256(line), seq: "problem" in facts ? undefined : facts.seq };
      if (problems.length >= 100) return { records, startsAt, problems };
    }
  }
  return { records, startsAt, problems };
}
