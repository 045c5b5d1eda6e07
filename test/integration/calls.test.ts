import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toAiSdkTools } from "../../src/adapters/ai-sdk.js";
import { fromOpenAIStrictArguments } from "../../src/adapters/index.js";
import {
  type Bridge,
  executeAnthropicToolUses,
  executeOpenAIToolCalls,
  startBridge,
  ToolExecutionError,
  toAnthropicTools,
  toOpenAITools,
} from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { inProcessEntry } from "../helpers/in-process.js";

let bridge: Bridge;

beforeAll(async () => {
  bridge = await startBridge({
    servers: {
      slow: inProcessEntry("slow-tool"),
      content: inProcessEntry("content-types", { maxResultChars: 1000 }),
      calc: inProcessEntry("normal"),
      dead: stdioEntry("exits-at-start", { restart: false }),
    },
  });
});
afterAll(() => bridge.close());

const cancelledCount = async () => Number((await bridge.call("slow/cancelled")).text);

describe("calls: timeouts, cancellation, progress", () => {
  it("times out, cancels the request on the server, and names tool and time", async () => {
    const before = await cancelledCount();
    const error = await bridge.call("slow/sleep", { ms: 10_000 }, { timeout: 300 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "TOOL_TIMEOUT", server: "slow", tool: "sleep", timeoutMs: 300 });
    expect((error as Error).message).toContain("300 ms");
    await expect.poll(cancelledCount, { timeout: 3000 }).toBe(before + 1);
  });

  it("aborts through the caller's signal and cancels on the server", async () => {
    const before = await cancelledCount();
    const controller = new AbortController();
    const call = bridge.call("slow/sleep", { ms: 10_000 }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(call).rejects.toMatchObject({ code: "ABORTED", tool: "sleep" });
    await expect.poll(cancelledCount, { timeout: 3000 }).toBe(before + 1);
  });

  it("reports progress, and resetTimeoutOnProgress keeps a reporting tool alive", async () => {
    const seen: number[] = [];
    const result = await bridge.call(
      "slow/progress",
      { steps: 3, intervalMs: 20 },
      { onProgress: (p) => seen.push(p.progress) },
    );
    expect(result.text).toBe("done after 3 steps");
    expect(seen).toEqual([1, 2, 3]);
    // 20 steps of 100 ms (2 s in all) against a 1.5 s timeout: each progress notification leaves
    // 15x headroom before the reset timer fires, so a loaded machine cannot time out the first call,
    // while the second call cannot finish before its timeout however fast the machine is.
    const kept = await bridge.call(
      "slow/progress",
      { steps: 20, intervalMs: 100 },
      { timeout: 1500, resetTimeoutOnProgress: true, onProgress: () => {} },
    );
    expect(kept.text).toBe("done after 20 steps");
    await expect(
      bridge.call("slow/progress", { steps: 20, intervalMs: 100 }, { timeout: 1500, onProgress: () => {} }),
    ).rejects.toMatchObject({ code: "TOOL_TIMEOUT" });
  });
});

describe("calls: errors", () => {
  it("isError: throws ToolExecutionError with the result, or returns it with onError: result", async () => {
    const error = await bridge.call("content/fails").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolExecutionError);
    expect((error as ToolExecutionError).message).toContain("the thing went wrong");
    const result = await bridge.call("content/fails", {}, { onError: "result" });
    expect(result).toMatchObject({ isError: true, text: "the thing went wrong" });
    const thrown = await bridge.call("content/throws", {}, { onError: "result" });
    expect(thrown.isError).toBe(true);
    expect(thrown.text).toContain("handler exploded");
  });

  it("unknown tools and servers that are down: typed errors, or `Error:` results the LLM reads", async () => {
    await expect(bridge.call("mcp_calc_nope")).rejects.toMatchObject({ code: "TOOL_NOT_FOUND" });
    await expect(bridge.call("calc/nope")).rejects.toMatchObject({ code: "TOOL_NOT_FOUND", server: "calc" });
    await expect(bridge.call("dead/anything")).rejects.toMatchObject({
      code: "SERVER_UNAVAILABLE",
      server: "dead",
    });
    const asResult = await bridge.call("dead/anything", {}, { onError: "result" });
    expect(asResult.isError).toBe(true);
    expect(asResult.text).toMatch(/^Error: .*"dead".*failed.*\[SERVER_UNAVAILABLE\]$/s);
  });

  it("validateArguments rejects bad arguments without a round trip, listing the fields", async () => {
    const error = await bridge
      .call("mcp_calc_add", { a: "x" }, { validateArguments: true })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "INVALID_ARGUMENTS", tool: "add" });
    expect((error as { issues: { path: string }[] }).issues.map((i) => i.path).sort()).toEqual(["a", "b"]);
  });
});

describe("results from a real server", () => {
  it("converts every content type", async () => {
    expect((await bridge.call("content/text")).text).toBe("first block\nsecond block");
    expect((await bridge.call("content/image")).text).toMatch(/^\[image: image\/png, \d+ B\]$/);
    expect((await bridge.call("content/audio")).text).toMatch(/^\[audio: audio\/wav, \d+ B\]$/);
    expect((await bridge.call("content/resource_text")).text).toBe("resource body");
    expect((await bridge.call("content/resource_blob")).text).toMatch(
      /^\[resource: file:\/\/\/a\.bin \(application\/octet-stream, \d+ B\)\]$/,
    );
    expect((await bridge.call("content/resource_link")).text).toBe(
      "[resource: report.pdf <file:///report.pdf>]",
    );
    const structured = await bridge.call("content/structured");
    expect(JSON.parse(structured.text)).toEqual({ temperature: 21.5, unit: "C" });
    const mixed = await bridge.call("content/mixed");
    expect(mixed.text.split("\n")[0]).toBe("see attached");
    expect(mixed.content.map((c) => c.type)).toEqual(["text", "image", "resource_link"]);
  });

  it("truncates at the server's limit, or the call's", async () => {
    const server = await bridge.call("content/big", { chars: 20_000 });
    expect(server.text.length).toBeLessThanOrEqual(1000);
    expect(server.truncated?.originalChars).toBe(20_000);
    const call = await bridge.call("content/big", { chars: 20_000 }, { maxResultChars: 100 });
    expect(call.text.length).toBeLessThanOrEqual(100);
    const calc = await bridge.call("calc/echo", { text: "z".repeat(6000) });
    expect(calc.text.length).toBeLessThanOrEqual(5000);
  });

  it("keeps statistics per tool and server", () => {
    const stats = bridge.stats();
    expect(stats.tools.mcp_content_fails?.errors).toBeGreaterThanOrEqual(1);
    expect(stats.tools.mcp_slow_sleep?.timeouts).toBeGreaterThanOrEqual(1);
    expect(stats.servers.content?.calls).toBeGreaterThan(5);
    expect(stats.servers.content?.p50Ms).toBeTypeOf("number");
  });
});

/** Walks a schema and checks OpenAI strict-mode rules on every object. */
function strictProblems(node: unknown, path = "$"): string[] {
  if (!node || typeof node !== "object") return [];
  const schema = node as Record<string, unknown>;
  const problems: string[] = [];
  if (schema.type === "object") {
    const keys = Object.keys((schema.properties ?? {}) as object).sort();
    const required = [...((schema.required ?? []) as string[])].sort();
    if (schema.additionalProperties !== false) problems.push(`${path}: additionalProperties is not false`);
    if (JSON.stringify(keys) !== JSON.stringify(required))
      problems.push(`${path}: required != all properties`);
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" && value && typeof value === "object") {
      for (const [name, child] of Object.entries(value))
        problems.push(...strictProblems(child, `${path}.${name}`));
    } else if (typeof value === "object") problems.push(...strictProblems(value, `${path}.${key}`));
  }
  return problems;
}

describe("exports", () => {
  it("OpenAI (plain and strict), Anthropic; strict arguments map back before the call", async () => {
    const tools = bridge.tools({ server: "calc" });
    const plain = toOpenAITools(tools);
    expect(plain[0]).toMatchObject({
      type: "function",
      function: { name: "mcp_calc_add", description: "[MCP:calc] Add two numbers" },
    });
    expect(plain[0]?.function.parameters).toEqual(tools[0]?.inputSchema);
    const strict = toOpenAITools(tools, { strict: true });
    for (const tool of strict)
      expect(strictProblems(tool.function.parameters), tool.function.name).toEqual([]);
    const greet = strict.find((t) => t.function.name === "mcp_calc_greet");
    const greetProperties = greet?.function.parameters.properties as
      | Record<string, { type: unknown }>
      | undefined;
    expect(greetProperties?.polite?.type).toEqual(["boolean", "null"]);
    const greetEntry = tools.find((t) => t.tool === "greet");
    if (!greetEntry) throw new Error("greet missing");
    const args = fromOpenAIStrictArguments(greetEntry, { name: "Ada", polite: null });
    expect(args).toEqual({ name: "Ada" });
    expect((await greetEntry.call(args)).text).toBe("Hello, Ada!");
    expect(toAnthropicTools(tools)[0]).toEqual({
      name: "mcp_calc_add",
      description: "[MCP:calc] Add two numbers",
      input_schema: tools[0]?.inputSchema,
    });
  });

  it("executes a model's tool calls concurrently in OpenAI and Anthropic shapes; failures become readable results", async () => {
    const openai = await executeOpenAIToolCalls(bridge, [
      { id: "1", type: "function", function: { name: "mcp_calc_add", arguments: '{"a":2,"b":2}' } },
      { id: "2", type: "function", function: { name: "mcp_calc_add", arguments: "{not json" } },
      { id: "3", type: "function", function: { name: "mcp_nope", arguments: "{}" } },
    ]);
    expect(openai[0]).toEqual({ role: "tool", tool_call_id: "1", content: "4" });
    expect(openai[1]?.content).toMatch(/^Error: .*not valid JSON/);
    expect(openai[2]?.content).toMatch(/^Error: Unknown tool "mcp_nope"/);
    const anthropic = await executeAnthropicToolUses(bridge, [
      { type: "text" },
      { type: "tool_use", id: "a", name: "mcp_calc_greet", input: { name: "Bo" } },
      { type: "tool_use", id: "b", name: "mcp_content_fails", input: {} },
    ] as never);
    expect(anthropic).toEqual([
      { type: "tool_result", tool_use_id: "a", content: "Hello, Bo!", is_error: false },
      { type: "tool_result", tool_use_id: "b", content: "the thing went wrong", is_error: true },
    ]);
  });

  it("Vercel AI SDK tools execute through the bridge", async () => {
    const tools = toAiSdkTools(bridge.tools({ server: "calc" }));
    const add = tools.mcp_calc_add;
    expect(add?.description).toBe("[MCP:calc] Add two numbers");
    // The execution options carry more in ai v7 (context, ...); our execute reads only abortSignal.
    const output = await add?.execute?.({ a: 20, b: 22 }, { toolCallId: "x", messages: [] } as never);
    expect(output).toBe("42");
  });
});

describe("tools the bridge cannot call", () => {
  it("keeps a task-required tool of a server without task support out of the exports and names it on the status", async () => {
    const tasks = await startBridge({
      servers: { undeclared: stdioEntry("tasks-undeclared"), declared: stdioEntry("tasks") },
    });
    try {
      expect(tasks.server("undeclared")?.state).toBe("connected");
      expect(tasks.tools({ server: "undeclared" }).map((tool) => tool.tool)).toEqual(["echo"]);
      expect(toOpenAITools(tasks.tools()).map((t) => t.function.name)).not.toContain(
        "mcp_undeclared_research",
      );
      expect(tasks.server("undeclared")?.skippedTools).toEqual([
        { tool: "research", reason: expect.stringContaining('taskSupport: "required"') },
      ]);
      // A server that declares task-augmented tools/call keeps its task-required tools.
      expect(tasks.tools({ server: "declared" }).map((tool) => tool.tool)).toContain("never-finishes");
      expect(tasks.server("declared")?.skippedTools).toBeUndefined();
    } finally {
      await tasks.close();
    }
  });
});
