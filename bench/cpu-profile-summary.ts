/**
 * `node dist/bench/cpu-profile-summary.js FILE.cpuprofile [fromFraction] [top]`: the top self-time and
 * inclusive entries of a V8 CPU profile (`node --cpu-prof`), counting only the samples after
 * `fromFraction` of the profile's duration (default 0.5: steady state after start-up and warm-up).
 * Idle samples are left out of the percentages, and so are, with `--no-write`, the samples in the
 * stream write bindings (`writeUtf8String`, `writev`, ...): on a loaded machine a pipe write that wakes its reader often leaves the writer
 * preempted there, which a wall-clock sampler counts but the process's CPU time does not.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const WRITES = new Set(["writeUtf8String", "writev", "writeBuffer", "writeLatin1String", "writeAsciiString"]);
const noWrite = process.argv.includes("--no-write");
const [file, fromText = "0.5", topText = "15"] = process.argv.slice(2).filter((a) => a !== "--no-write");
if (!file) throw new Error("usage: cpu-profile-summary FILE [fromFraction] [top]");
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const label = (n: ProfileNode) => {
  const url = n.callFrame.url.replace(/^file:\/\/.*?\/(node_modules|dist)\//, "$1/");
  const where = url ? ` ${url.split("/").slice(-3).join("/")}:${n.callFrame.lineNumber + 1}` : "";
  return `${n.callFrame.functionName || "(anonymous)"}${where}`;
};

const from = profile.startTime + (profile.endTime - profile.startTime) * Number(fromText);
const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
let t = profile.startTime;
profile.samples.forEach((id, i) => {
  t += profile.timeDeltas[i] ?? 0;
  if (t < from) return;
  const node = byId.get(id);
  if (!node || node.callFrame.functionName === "(idle)") return;
  if (noWrite && WRITES.has(node.callFrame.functionName)) return;
  total++;
  self.set(label(node), (self.get(label(node)) ?? 0) + 1);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const name = label(byId.get(cur) as ProfileNode);
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + 1);
  }
});
const top = Number(topText);
const show = (title: string, table: Map<string, number>) => {
  console.log(`${title} (${total} busy samples)`);
  for (const [name, n] of [...table].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * n) / total).toFixed(1).padStart(5)}%  ${name}`);
  }
};
show("self", self);
show("inclusive", inclusive);
