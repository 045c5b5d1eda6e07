/**
 * What the call policy and the audit log cost per call: client CPU per warm stdio call of one bridge
 * with no policy (the figure `npm run bench` has always measured), with a ten-rule policy (globs,
 * annotations, an argument glob and an RE2 regex, a caller rule; the call matches the last), and with
 * that policy plus the audit log; and the evaluator alone, per decision. The three bridges alternate
 * rounds so machine noise falls on each alike. Runs alone: `node dist/bench/policy.js [--quick]`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startBridge } from "../src/bridge/bridge.js";
import type { PolicySettings } from "../src/config/policy-settings.js";
import { PolicyEngine } from "../src/policy/policy-engine.js";
import { type Figure, fmt, measureSequential } from "./stats.js";

const RULES: PolicySettings = {
  default: "allow",
  rules: [
    { server: "other*", action: "deny" },
    { tool: "delete_*", action: "deny" },
    { annotations: { destructiveHint: true }, caller: "ci-*", action: "deny" },
    { tool: "read_*", args: [{ path: "$.path", glob: "/etc/*" }], action: "deny" },
    { args: [{ path: "$.path", regex: "\\.env$" }], action: "ask" },
    { caller: "intern", action: "deny" },
    { server: "web", tool: "fetch", action: "limit", limit: { perMinute: 10 } },
    { tool: "write_*", action: "ask" },
    { tool: "*_admin", action: "deny" },
    { server: "b", tool: "add", action: "allow" },
  ],
};

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export async function policyFigures(server: string, quick: boolean): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), "mcp-bridge-bench-policy-"));
  const entry = { command: process.execPath, args: [server], stderr: "ignore" };
  const start = (settings: Record<string, unknown>) =>
    startBridge({ servers: { b: entry }, env: process.env, settings, catalogCache: false });
  const bridges = {
    none: await start({}),
    policy: await start({ policy: RULES }),
    audit: await start({ policy: RULES, audit: { file: join(dir, "audit.jsonl") } }),
  };
  const calls = quick ? 300 : 2000;
  const cpu: Record<keyof typeof bridges, number[]> = { none: [], policy: [], audit: [] };
  try {
    for (const bridge of Object.values(bridges))
      await measureSequential(calls, 0, (i) => bridge.call("mcp_b_add", { a: i, b: 1 }));
    for (let round = 0; round < (quick ? 3 : 7); round++) {
      for (const [name, bridge] of Object.entries(bridges) as [keyof typeof bridges, typeof bridges.none][]) {
        const sample = await measureSequential(calls, 0, (i) => bridge.call("mcp_b_add", { a: i, b: 1 }));
        cpu[name].push(sample.cpuUs);
      }
    }
  } finally {
    for (const bridge of Object.values(bridges)) await bridge.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const engine = new PolicyEngine(undefined, RULES);
  const facts = { server: "b", tool: "add", annotations: undefined, args: { a: 1, b: 1 }, caller: "" };
  const decisions = quick ? 20_000 : 200_000;
  for (let i = 0; i < decisions; i++) engine.decide(facts, i);
  const started = process.hrtime.bigint();
  for (let i = 0; i < decisions; i++) engine.decide(facts, i);
  const evaluationUs = Number(process.hrtime.bigint() - started) / 1000 / decisions;
  const none = median(cpu.none);
  const policy = median(cpu.policy);
  const audit = median(cpu.audit);
  return [
    {
      name: "policy_eval_10_rules",
      unit: "us",
      bridge: evaluationUs,
      baseline: none,
      baselineName: "client CPU per call",
      detail: `${fmt((evaluationUs / none) * 100, 2)}% of a warm stdio call's client CPU`,
      target: { text: "< 3% of per-call CPU", met: evaluationUs / none < 0.03 },
    },
    {
      name: "policy_call_cpu_10_rules",
      unit: "us",
      bridge: policy,
      baseline: none,
      baselineName: "no policy",
      detail: `rounds: policy ${cpu.policy.map((v) => fmt(v)).join("/")}; none ${cpu.none.map((v) => fmt(v)).join("/")}`,
    },
    {
      name: "audit_call_cpu",
      unit: "us",
      bridge: audit,
      baseline: none,
      baselineName: "no policy, no audit",
      detail: "two chained, locked appends per call (decision and outcome)",
    },
  ];
}

// Alone: `node dist/bench/policy.js [--quick]` prints the figures.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const server = join(dirname(fileURLToPath(import.meta.url)), "servers/bench-server.js");
  for (const figure of await policyFigures(server, process.argv.includes("--quick"))) {
    process.stdout.write(
      `${figure.name}: ${fmt(figure.bridge)} ${figure.unit} vs ${fmt(figure.baseline)} ${figure.unit} (${figure.baselineName}) ${figure.detail ?? ""}\n`,
    );
  }
}
