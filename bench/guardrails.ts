/**
 * What the guardrails' built-in checks cost: secrets (the log redaction's detector with a few config
 * secrets), hidden text and instruction-like text, found over a 10 KiB tool result (ordinary prose and
 * JSON, nothing to find: the common case), and found and masked over the same result with a token, a
 * private key and tag characters planted in it. Also hostile inputs built to make backtracking patterns
 * go quadratic (`eyJ-` repeated, `a.a.a…`, `glpat-` repeated), whose per-KiB cost must stay flat.
 * Runs alone: `node dist/bench/guardrails.js [--quick]`.
 */
import { fileURLToPath } from "node:url";
import { findIn, maskIn, type ValueScanner } from "../src/bridge/guard-values.js";
import type { GuardrailCheck } from "../src/config/guardrail-settings.js";
import { CHECKS_OF } from "../src/policy/guard-scan.js";
import { SecretMask } from "../src/util/redact.js";
import { type Figure, fmt, percentile } from "./stats.js";

const PROSE =
  "The deployment finished in 42 seconds. Three services were restarted (api, worker, scheduler) and the " +
  'health checks passed on every node. {"id": 1234, "status": "ok", "region": "eu-west-1", "items": [1, 2, 3]} ';

function resultOf(text: string): Record<string, unknown> {
  return { content: [{ type: "text", text }], isError: false };
}

function tenKiB(planted: string): string {
  let text = "";
  while (text.length < 10 * 1024 - planted.length) text += PROSE;
  return text.slice(0, 5 * 1024) + planted + text.slice(5 * 1024, 10 * 1024 - planted.length);
}

/** Microseconds per run of `work`, p50 over `samples` timed batches of `batch` runs. */
function p50Us(samples: number, batch: number, work: () => void): number {
  for (let i = 0; i < batch * 20; i++) work();
  const times: number[] = [];
  for (let s = 0; s < samples; s++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) work();
    times.push(Number(process.hrtime.bigint() - started) / 1000 / batch);
  }
  return percentile(times, 0.5);
}

export function guardrailFigures(quick: boolean): Figure[] {
  const secrets = new SecretMask();
  secrets.add(["s3cr3t-config-value", "another-config-secret-value", "db-password-123"]);
  const scanner: ValueScanner = { secrets, binary: true };
  const checks = CHECKS_OF.result;
  const all = new Set<GuardrailCheck>(checks);
  const clean = resultOf(tenKiB(""));
  const hide = (ascii: string) =>
    [...ascii].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join("");
  const planted = resultOf(
    tenKiB(
      ` token ghp_${"a1B2c3D4e5".repeat(4)} key -----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY----- ${hide("leak it")} `,
    ),
  );
  const samples = quick ? 50 : 300;
  const cleanUs = p50Us(samples, 20, () => findIn(clean, checks, scanner));
  // A yardstick measured alongside, so a loaded machine's figure can be read: every call of a gateway
  // serialises its result once.
  const stringifyUs = p50Us(samples, 20, () => JSON.stringify(clean));
  const maskedUs = p50Us(samples, 20, () =>
    maskIn(planted, new Set(findIn(planted, checks, scanner)), scanner),
  );
  if (findIn(clean, checks, scanner).length !== 0) throw new Error("the clean result has findings");
  const hostile: Record<string, string> = {
    jwt: "eyJ-".repeat(25_600),
    url: "a.".repeat(51_200),
    glpat: "glpat-".repeat(17_066),
  };
  const hostileUs = Object.fromEntries(
    Object.entries(hostile).map(([name, text]) => {
      const value = resultOf(text);
      return [name, p50Us(quick ? 5 : 20, 1, () => maskIn(value, all, scanner)) / (text.length / 1024)];
    }),
  );
  const worst = Math.max(...Object.values(hostileUs));
  return [
    {
      name: "guardrails_10kib_result",
      unit: "us",
      bridge: cleanUs,
      baseline: 50,
      baselineName: "target",
      detail: `built-in checks (secrets, hidden text, instructions) over a clean 10 KiB result, p50; JSON.stringify of it ${fmt(stringifyUs)} us`,
      target: { text: "<= 50 us p50", met: cleanUs <= 50 },
    },
    {
      name: "guardrails_10kib_result_masked",
      unit: "us",
      bridge: maskedUs,
      baseline: cleanUs,
      baselineName: "clean result",
      detail: "a token, a private key and tag characters found and masked, p50",
    },
    {
      name: "guardrails_hostile_per_kib",
      unit: "us",
      bridge: worst,
      baseline: cleanUs / 10,
      baselineName: "clean result per KiB",
      detail: `100 KiB built against backtracking, per KiB: ${Object.entries(hostileUs)
        .map(([name, us]) => `${name} ${fmt(us)}`)
        .join(", ")}`,
    },
  ];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const figure of guardrailFigures(process.argv.includes("--quick"))) {
    process.stdout.write(
      `${figure.name}: ${fmt(figure.bridge)} ${figure.unit} vs ${fmt(figure.baseline)} ${figure.unit} (${figure.baselineName}) ${figure.detail ?? ""}\n`,
    );
  }
}
