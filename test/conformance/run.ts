/**
 * `npm run conformance`: every client scenario of the official MCP conformance suite, run one at a
 * time against test/conformance/client.ts (mcp-bridge's public API), for the pinned stable suite and
 * the 0.2 prerelease (default spec and 2026-07-28). The suite needs Node >= 22; it is installed into
 * .conformance/ on first use (npm registry), our client keeps running on this Node.
 */
import { execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { node22, root, SUITES, suiteEntry } from "./suites.js";

const client = join(root, "dist/test/conformance/client.js");
const SCENARIO_TIMEOUT_MS = 90_000;

/**
 * Failures we expect, with the reason; anything else failing fails the run.
 * Keep this short and explain each entry.
 */
const EXPECTED_FAILURES: Record<string, string> = {
  "auth/2025-03-26-oauth-metadata-backcompat":
    "the suite's mock server is itself wrong for this scenario (the plain SDK client fails it the same way)",
};

function listScenarios(node: string, entry: string, specVersion?: string): string[] {
  const args = [entry, "list", "--client", ...(specVersion ? ["--spec-version", specVersion] : [])];
  let out: string;
  try {
    out = execFileSync(node, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    out = String((error as { stdout?: string }).stdout ?? "");
  }
  return [...out.matchAll(/^\s*-\s+(\S+)/gm)].map((m) => m[1] as string);
}

interface Outcome {
  readonly status: "passed" | "failed" | "expected-failure" | "skipped";
  readonly detail: string;
}

function runScenario(node: string, entry: string, scenario: string, specVersion?: string): Promise<Outcome> {
  return new Promise((done) => {
    const args = [
      entry,
      "client",
      "--command",
      `${process.execPath} ${client}`,
      "--scenario",
      scenario,
      ...(specVersion ? ["--spec-version", specVersion] : []),
    ];
    // Its own process group: the suite kills only its `sh`, so a hung client could outlive it.
    const child = spawn(node, args, { detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout?.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr?.on("data", (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => {
      try {
        process.kill(-(child.pid as number), "SIGKILL");
      } catch {
        // gone already
      }
    }, SCENARIO_TIMEOUT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const counts = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(output);
      const checks = counts ? Number(counts[2]) : 0;
      const passed = /OVERALL: PASSED/.test(output) && code === 0 && checks > 0;
      const detail = signal
        ? `killed after ${SCENARIO_TIMEOUT_MS} ms`
        : counts
          ? `${counts[1]}/${counts[2]} checks`
          : "no checks recorded";
      const reason = EXPECTED_FAILURES[scenario];
      if (passed) done({ status: "passed", detail });
      else if (reason) done({ status: "expected-failure", detail: `${detail}; expected: ${reason}` });
      else {
        const failedChecks = [...output.matchAll(/^\s+- (.+)$/gm)]
          .map((m) => m[1])
          .slice(0, 3)
          .join("; ");
        done({ status: "failed", detail: `${detail}${failedChecks ? `: ${failedChecks}` : ""}` });
      }
    });
  });
}

const only = process.argv.slice(2).filter((a) => !a.startsWith("-"));
let passed = 0;
let failed = 0;
let skipped = 0;
const node = node22();
for (const suite of SUITES) {
  const entry = suiteEntry(suite.version);
  const scenarios = listScenarios(node, entry, suite.specVersion).filter(
    (s) => only.length === 0 || only.includes(s),
  );
  console.log(`\n# conformance ${suite.label}: ${scenarios.length} client scenarios`);
  for (const scenario of scenarios) {
    const started = Date.now();
    const outcome = await runScenario(node, entry, scenario, suite.specVersion);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (outcome.status === "passed") passed++;
    else if (outcome.status === "failed") failed++;
    else skipped++;
    const label = { passed: "PASS ", failed: "FAIL ", "expected-failure": "XFAIL", skipped: "SKIP " }[
      outcome.status
    ];
    console.log(`${label} ${scenario} (${seconds} s) ${outcome.detail}`);
  }
}
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
