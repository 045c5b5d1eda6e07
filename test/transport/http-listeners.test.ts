import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { startHttpFixture } from "../fixtures/servers/index.js";

const built = pathToFileURL(resolve(fileURLToPath(import.meta.url), "../../../dist/src/index.js")).href;

/**
 * A host in its own process making `count` concurrent calls over Streamable HTTP, all of them with no
 * signal and then all of them with one shared signal (as an agent gives one turn's signal to every
 * call of the turn). Returns what the host printed on stderr.
 */
function concurrentCalls(url: string, count: number) {
  return hostScript(`
    import { startBridge } from ${JSON.stringify(built)};
    const bridge = await startBridge({ servers: { slow: { type: "http", url: ${JSON.stringify(url)} } } });
    await bridge.ready();
    const sleep = bridge.tools().find((t) => t.name.endsWith("sleep")).name;
    const shared = new AbortController();
    const plain = await Promise.all(Array.from({ length: ${count} }, () => bridge.call(sleep, { ms: 300 })));
    const signalled = await Promise.all(
      Array.from({ length: ${count} }, () => bridge.call(sleep, { ms: 300 }, { signal: shared.signal })),
    );
    console.log([...plain, ...signalled].filter((r) => r.text === "slept").length);
    await bridge.close();
  `);
}

/** The same for resource reads, which take another path to the SDK than tool calls. */
function concurrentReads(url: string, count: number) {
  return hostScript(`
    import { startBridge } from ${JSON.stringify(built)};
    const bridge = await startBridge({ servers: { memo: { type: "http", url: ${JSON.stringify(url)} } } });
    await bridge.ready();
    const shared = new AbortController();
    const reads = await Promise.all(
      Array.from({ length: ${count} }, () => bridge.readResource("memo://note", { signal: shared.signal })),
    );
    console.log(reads.length);
    await bridge.close();
  `);
}

async function hostScript(script: string): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const home = mkdtempSync(join(tmpdir(), "mcp-bridge-listeners-"));
  try {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      cwd: home,
      env: { PATH: process.env.PATH ?? "", HOME: home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 25_000);
    const code = await new Promise<number | null>((done) => child.once("close", done));
    clearTimeout(timer);
    return { code, stderr, stdout };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

describe("Streamable HTTP abort listeners", () => {
  it("50 concurrent calls print no MaxListenersExceededWarning on the host's stderr", async () => {
    await using server = await startHttpFixture("slow-tool");
    const { code, stderr, stdout } = await concurrentCalls(server.url, 50);
    expect(stderr).not.toContain("MaxListenersExceededWarning");
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout.trim()).toBe("100");
  });

  it("50 concurrent resource reads sharing one signal print no warning either", async () => {
    await using server = await startHttpFixture("echoes-meta");
    const { code, stderr, stdout } = await concurrentReads(server.url, 50);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout.trim()).toBe("50");
  });
});
