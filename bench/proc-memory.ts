import { readdirSync, readFileSync } from "node:fs";

/**
 * Memory of a process tree from /proc (Linux), for the bench sections that compare what processes
 * cost: USS (Private_Clean + Private_Dirty, what a process alone holds), RSS, and the processes below one.
 */

/** USS of one process in KiB; 0 when it is gone. */
export function ussKiB(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    let total = 0;
    for (const match of text.matchAll(/^Private_(?:Clean|Dirty):\s+(\d+) kB$/gm)) total += Number(match[1]);
    return total;
  } catch {
    return 0;
  }
}

/** RSS of one process in KiB (VmRSS: shared pages counted in every process that maps them); 0 when gone. */
export function rssKiB(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Every process below `root`, from /proc. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
    } catch {
      // gone
    }
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(root);
  return found;
}
