import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toAiSdkTools } from "../../src/adapters/ai-sdk.js";
import type { Bridge, CallOptions, ToolEntry } from "../../src/bridge/api.js";
import { startBridge } from "../../src/bridge/bridge.js";
import type { ToolResult } from "../../src/results/tool-result.js";
import { inProcessEntry } from "../helpers/in-process.js";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A ToolEntry as plain data: records what `execute` passes on. */
function entry(calls: { args: unknown; options: CallOptions | undefined }[]): ToolEntry {
  return {
    name: "mcp_s_echo",
    server: "s",
    tool: "echo",
    description: "[MCP:s] Echoes",
    inputSchema: { properties: { text: { type: "string" } } },
    flatParameters: () => ({ parameters: [], complete: true, omitted: [] }),
    async call(args, options): Promise<ToolResult> {
      calls.push({ args, options });
      return { text: `echo: ${String(args?.text)}`, content: [], isError: false };
    },
  };
}

describe("toAiSdkTools", () => {
  it("builds one AI SDK tool per entry and passes the SDK's abort signal and the host's options", async () => {
    const calls: { args: unknown; options: CallOptions | undefined }[] = [];
    const tools = toAiSdkTools([entry(calls)], { timeout: 999, maxResultChars: 50 });
    const echo = tools.mcp_s_echo;
    expect(Object.keys(tools)).toEqual(["mcp_s_echo"]);
    expect(echo?.description).toBe("[MCP:s] Echoes");
    const controller = new AbortController();
    const output = await echo?.execute?.({ text: "hi" }, {
      toolCallId: "1",
      messages: [],
      abortSignal: controller.signal,
    } as never);
    expect(output).toBe("echo: hi");
    expect(calls[0]?.options).toMatchObject({
      timeout: 999,
      maxResultChars: 50,
      onError: "result",
      signal: controller.signal,
    });
  });
});

describe("toAiSdkTools with a real server through the bridge", () => {
  let bridge: Bridge;
  beforeAll(async () => {
    bridge = await startBridge({ servers: { calc: inProcessEntry("normal") } });
  }, 30_000);
  afterAll(() => bridge?.close());

  it("runs in generateText: the model's tool call reaches the server and the result goes back", async () => {
    const tools = toAiSdkTools(bridge.tools());
    const add = bridge.tools().find((tool) => tool.tool === "add");
    expect(add).toBeDefined();
    const model = new MockLanguageModelV3({
      doGenerate: [
        {
          content: [
            { type: "tool-call", toolCallId: "call-1", toolName: add?.name ?? "", input: '{"a":20,"b":22}' },
          ],
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage,
          warnings: [],
        },
        {
          content: [{ type: "text", text: "It is 42." }],
          finishReason: { unified: "stop", raw: "stop" },
          usage,
          warnings: [],
        },
      ],
    });
    const result = await generateText({ model, tools, prompt: "What is 20 + 22?", stopWhen: stepCountIs(3) });
    expect(result.text).toBe("It is 42.");
    expect(result.steps[0]?.toolResults.map((r) => r.output)).toEqual(["42"]);
    // The second model call saw the tool's answer.
    expect(JSON.stringify(model.doGenerateCalls[1]?.prompt)).toContain("42");
    // The tool definition the model was given is the server's schema.
    const offered = model.doGenerateCalls[0]?.tools?.find((tool) => tool.name === add?.name) as
      | { inputSchema: unknown }
      | undefined;
    expect(offered?.inputSchema).toMatchObject({
      properties: { a: { type: "number" }, b: { type: "number" } },
    });
  });

  it("a failing call resolves to an `Error:` text the model reads instead of throwing", async () => {
    const tools = toAiSdkTools(bridge.tools());
    const add = bridge.tools().find((tool) => tool.tool === "add");
    // Arguments the server rejects: the SDK's validation error comes back as text.
    const output = await tools[add?.name ?? ""]?.execute?.({ a: "x" }, {
      toolCallId: "2",
      messages: [],
    } as never);
    expect(output).toMatch(/^Error: Input validation error: .*a: .*expected number/);
  });
});
