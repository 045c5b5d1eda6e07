import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Progress } from "../../src/index.js";
import { startBridge } from "../../src/index.js";
import { until } from "../helpers/wait.js";

const entry = join(process.cwd(), "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}

/** server-everything over Streamable HTTP (it takes its port from PORT and says when it listens). */
describe("server-everything over Streamable HTTP", () => {
  let child: ChildProcess | undefined;
  let url = "";
  beforeAll(async () => {
    const port = await freePort();
    child = spawn(process.execPath, [entry, "streamableHttp"], {
      env: { ...process.env, PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    await until(() => stderr.includes("listening on port"), 15_000);
    url = `http://127.0.0.1:${port}/mcp`;
  });
  afterAll(() => {
    child?.kill("SIGKILL");
  });

  // Resources, prompts, completions, logging and progress over Streamable HTTP are in the transport
  // contract suite (test/transport/contract/); this is the task tool of a server written by others.
  it("runs server-everything's task tool with progress", async () => {
    await using bridge = await startBridge({ servers: { everything: { url } } });
    expect(bridge.server("everything")?.state).toBe("connected");
    const progress: Progress[] = [];
    const report = await bridge.call(
      "everything/simulate-research-query",
      { topic: "HTTP" },
      { onProgress: (update) => progress.push(update), timeout: 30_000 },
    );
    expect(report.text).toContain("Research Report: HTTP");
    expect(progress.length).toBeGreaterThan(0);
  });
});
