import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Progress } from "../../src/index.js";
import { ErrorCode, startBridge } from "../../src/index.js";
import type { LogFields } from "../../src/util/logger.js";
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
describe("server-everything beyond tools (Streamable HTTP)", () => {
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

  it("reads resources and prompts, completes, logs and runs the task tool", async () => {
    const logged: LogFields[] = [];
    const keep = (_message: string, fields?: LogFields) => {
      if (fields?.level !== undefined) logged.push(fields);
    };
    await using bridge = await startBridge({
      servers: { everything: { url, logLevel: "debug" } },
      logger: { debug: keep, info: keep, warn: keep, error: keep },
    });
    expect(bridge.server("everything")?.state).toBe("connected");
    const text = await bridge.readResource("demo://resource/dynamic/text/4");
    expect(text.text).toContain("Resource 4");
    expect((await bridge.resources()).length).toBeGreaterThan(0);
    const prompt = await bridge.getPrompt("everything/args-prompt", { city: "Rome", state: "Lazio" });
    expect(prompt.messages[0]?.text).toBe("What's weather in Rome, Lazio?");
    const completion = await bridge.complete(
      { type: "resource", server: "everything", uriTemplate: "demo://resource/dynamic/text/{resourceId}" },
      { name: "resourceId", value: "12" },
    );
    expect(completion.values).toEqual(["12"]);
    await bridge.call("everything/toggle-simulated-logging", {});
    await until(() => logged.some((fields) => fields.server === "everything"));
    const progress: Progress[] = [];
    const report = await bridge.call(
      "everything/simulate-research-query",
      { topic: "HTTP" },
      { onProgress: (update) => progress.push(update), timeout: 30_000 },
    );
    expect(report.text).toContain("Research Report: HTTP");
    expect(progress.length).toBeGreaterThan(0);
    await expect(bridge.getPrompt("everything/args-prompt", { state: "Lazio" })).rejects.toMatchObject({
      code: ErrorCode.InvalidArguments,
    });
  });
});
