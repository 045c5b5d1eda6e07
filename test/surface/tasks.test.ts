import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Progress } from "../../src/index.js";
import { ErrorCode, startBridge } from "../../src/index.js";
import { inProcessEntry } from "../helpers/in-process.js";

const everything = {
  command: process.execPath,
  args: [join(process.cwd(), "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
};

describe("task tools", () => {
  it("calls server-everything's task-only tool through bridge.call, with status messages as progress", async () => {
    await using bridge = await startBridge({ servers: { everything } });
    const progress: Progress[] = [];
    const result = await bridge.call(
      "everything/simulate-research-query",
      { topic: "MCP" },
      { onProgress: (update) => progress.push(update), timeout: 30_000 },
    );
    expect(result.text).toContain("Research Report: MCP");
    expect(progress.map((update) => update.message)).toContain("working: Gathering sources...");
  });
});

describe("task tools against a misbehaving task server", () => {
  it("runs an optional-task tool as a task when the server supports it", async () => {
    await using bridge = await startBridge({ servers: { tasks: inProcessEntry("tasks") } });
    const progress: Progress[] = [];
    const result = await bridge.call("tasks/quick", {}, { onProgress: (update) => progress.push(update) });
    expect(result.text).toBe("quick task result");
    expect(progress.map((update) => update.message)).toContain("working: started");
  });

  it("cancels a task that never finishes at the call's timeout (tasks/cancel sent), and stays usable", async () => {
    await using bridge = await startBridge({ servers: { tasks: inProcessEntry("tasks") } });
    const failure = await bridge
      .call("tasks/never-finishes", {}, { timeout: 800 })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: ErrorCode.ToolTimeout, server: "tasks", tool: "never-finishes" });
    expect(String((failure as Error).message)).toMatch(/task task-1/);
    const cancelled = await bridge.call("tasks/cancelled", {});
    expect(JSON.parse(cancelled.text)).toEqual(["task-1"]);
  });

  it("an aborted task call is cancelled on the server", async () => {
    await using bridge = await startBridge({ servers: { tasks: inProcessEntry("tasks") } });
    const controller = new AbortController();
    const pending = bridge.call("tasks/never-finishes", {}, { signal: controller.signal, timeout: 30_000 });
    setTimeout(() => controller.abort(), 300);
    await expect(pending).rejects.toMatchObject({ code: ErrorCode.Aborted, server: "tasks" });
    expect(JSON.parse((await bridge.call("tasks/cancelled", {})).text)).toEqual(["task-1"]);
  });

  it("a server that crashes mid-task fails that call with SERVER_CRASHED naming server and tool", async () => {
    await using bridge = await startBridge({
      servers: { tasks: inProcessEntry("tasks"), other: inProcessEntry("normal") },
    });
    await expect(bridge.call("tasks/crash-mid-task", {}, { timeout: 20_000 })).rejects.toMatchObject({
      code: ErrorCode.ServerCrashed,
      server: "tasks",
      tool: "crash-mid-task",
    });
    expect((await bridge.call("other/add", { a: 1, b: 2 })).text).toBe("3");
  });
});
