/**
 * `npm run conformance:gateway`: the official conformance suite's SERVER scenarios against
 * `mcp-bridge serve --http`, fronting the suite's own reference server (vendored in
 * conformance/reference-server, written on SDK 1.x; its dependencies are installed into .conformance/).
 * Each scenario also runs against the reference server directly, so a failure of the gateway is told
 * apart from one of the server behind it. Exits 1 when the gateway fails a scenario the reference passes.
 *
 * The gateway exposes the upstream tools under their own names (`serveToolNameFormat: "{tool}"`, no
 * description prefix), which is what a suite written for one server expects.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cache, node22, npmInstall, root, SUITES, suiteEntry } from "./suites.js";

const SUITE_TIMEOUT_MS = 5 * 60_000;

/**
 * Scenarios the gateway fails on purpose, each with the reason; reported, not counted as regressions.
 * None at present: upstream log messages sent with a call (tools-call-with-logging) reach the client
 * that made it (see src/apps/gateway/forwarding/upstream-logs.ts).
 */
const DELIBERATE: Readonly<Record<string, string>> = {};
const START_TIMEOUT_MS = 60_000;

/** Starts a process in its own group and resolves with it once a stdout line matches `ready`. */
function startProcess(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string },
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(command, args, { ...options, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop(child);
      reject(new Error(`${args.join(" ")} did not start in time:\n${output}`));
    }, START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(" ")} exited with ${code}:\n${output}`));
    });
  });
}

function stop(child: ChildProcess): void {
  try {
    process.kill(-(child.pid as number), "SIGKILL");
  } catch {
    // gone already
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Runs a suite's server scenarios against `url`; each scenario's outcome from the suite's summary. */
function runServerSuite(node: string, entry: string, url: string, specVersion?: string) {
  const args = [entry, "server", "--url", url, ...(specVersion ? ["--spec-version", specVersion] : [])];
  return new Promise<Map<string, string>>((resolve) => {
    execFile(node, args, { timeout: SUITE_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 }, (_error, stdout) => {
      const outcomes = new Map<string, string>();
      const summary = stdout.slice(stdout.indexOf("=== SUMMARY ==="));
      for (const m of summary.matchAll(/^([✓✗]) (\S+): (\d+) passed, (\d+) failed/gm)) {
        outcomes.set(
          m[2] as string,
          m[1] === "✓" ? "pass" : `FAIL (${m[4]} of ${Number(m[3]) + Number(m[4])})`,
        );
      }
      resolve(outcomes);
    });
  });
}

const processes: ChildProcess[] = [];
const work = mkdtempSync(join(tmpdir(), "mcp-bridge-conformance-"));
let regressions = 0;
try {
  const node = node22();
  const serverDir = join(cache, "reference-server");
  npmInstall(serverDir, "@modelcontextprotocol/sdk@1.29.0", "express@5", "cors@2", "zod@4", "tsx@4");
  writeFileSync(join(serverDir, "package.json"), '{ "type": "module" }\n');
  copyFileSync(
    join(root, "conformance/reference-server/everything-server.ts"),
    join(serverDir, "everything-server.ts"),
  );
  const port = await freePort();
  const reference = await startProcess(
    process.execPath,
    ["--import", "tsx", "everything-server.ts"],
    { cwd: serverDir, env: { ...process.env, PORT: String(port) } },
    /running on/,
  );
  processes.push(reference.child);
  const referenceUrl = `http://localhost:${port}/mcp`;

  const config = join(work, "mcp.json");
  writeFileSync(
    config,
    JSON.stringify({
      settings: { serveToolNameFormat: "{tool}" },
      mcpServers: {
        // SDK 1.29 answers the 2026-07-28 discovery but leaves `resultType` out of its results, which a
        // 2026-07-28 client must reject: the reference is spoken to in the 2025-11-25 protocol.
        everything: { type: "http", url: referenceUrl, sampling: true, negotiation: "legacy" },
      },
    }),
  );
  const gateway = await startProcess(
    process.execPath,
    [join(root, "dist/src/apps/cli/bin.js"), "serve", "--http", "127.0.0.1:0", "--json", "-c", config],
    { cwd: work, env: { ...process.env, MCP_BRIDGE_CATALOG_CACHE: "0" } },
    /"url":"([^"]+)"/,
  );
  processes.push(gateway.child);
  const gatewayUrl = gateway.match[1] as string;

  for (const suite of SUITES) {
    const entry = suiteEntry(suite.version);
    // One after the other: some scenarios change the reference server's state (subscriptions).
    const direct = await runServerSuite(node, entry, referenceUrl, suite.specVersion);
    const through = await runServerSuite(node, entry, gatewayUrl, suite.specVersion);
    console.log(`\n# conformance ${suite.label}: server scenarios (reference server | through the gateway)`);
    let passed = 0;
    for (const scenario of new Set([...direct.keys(), ...through.keys()])) {
      const a = direct.get(scenario) ?? "not run";
      const b = through.get(scenario) ?? "not run";
      const deliberate = b !== "pass" && a === "pass" ? DELIBERATE[scenario] : undefined;
      if (b === "pass") passed++;
      else if (a === "pass" && deliberate === undefined) regressions++;
      const mark = b === "pass" ? "PASS " : deliberate ? "KNOWN" : a === "pass" ? "FAIL " : "SAME ";
      console.log(`${mark} ${scenario}: ${a} | ${b}${deliberate ? ` (${deliberate})` : ""}`);
    }
    console.log(`${passed} of ${through.size} scenarios pass through the gateway`);
  }
} finally {
  for (const child of processes) stop(child);
  rmSync(work, { recursive: true, force: true });
}
console.log(`\n${regressions} scenario(s) the reference server passes fail through the gateway`);
process.exit(regressions > 0 ? 1 : 0);
