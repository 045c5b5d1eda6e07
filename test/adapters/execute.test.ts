import { describe, expect, it } from "vitest";
import { toAnthropicTools } from "../../src/adapters/anthropic.js";
import {
  executeAnthropicToolUses,
  executeOpenAIToolCalls,
  executeToolCalls,
} from "../../src/adapters/execute.js";
import type { CallOptions } from "../../src/bridge/api.js";
import { ToolNotFoundError } from "../../src/errors/index.js";
import type { ToolDefinition } from "../../src/registry/tool-definition.js";
import type { ToolResult } from "../../src/results/tool-result.js";

const text = (value: string, isError = false): ToolResult => ({
  text: value,
  content: [{ type: "text", text: value }],
  isError,
});

const greet: ToolDefinition = {
  name: "mcp_s_greet",
  server: "s",
  tool: "greet",
  description: "[MCP:s] Greets",
  inputSchema: {
    type: "object",
    properties: { name: { type: "string" }, polite: { type: "boolean" } },
    required: ["name"],
  },
};

/**
 * A plain object with the bridge's `call` (and `tool`), standing in for the host's bridge. Each call
 * waits until `expected` calls are in flight, so a sequential executor would never finish.
 */
function fakeBridge(expected: number) {
  const seen: {
    name: string;
    args: Record<string, unknown> | undefined;
    options: CallOptions | undefined;
  }[] = [];
  let release!: () => void;
  const allStarted = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    seen,
    tool: (name: string) => (name === greet.name ? greet : undefined),
    async call(name: string, args?: Record<string, unknown>, options?: CallOptions): Promise<ToolResult> {
      seen.push({ name, args, options });
      if (seen.length === expected) release();
      await allStarted;
      if (name === "mcp_s_greet") return text(`Hello, ${String(args?.name)}${args?.polite ? "!" : "."}`);
      if (name === "mcp_s_fails") return text("disk full", true);
      if (name === "mcp_s_throws") throw new Error("socket hang up");
      throw new ToolNotFoundError(`Unknown tool "${name}".`, { tool: name });
    },
  };
}

describe("executeOpenAIToolCalls", () => {
  it("runs calls concurrently and answers each tool_call_id, failures as `Error:` text", {
    timeout: 5000,
  }, async () => {
    const bridge = fakeBridge(4);
    const messages = await executeOpenAIToolCalls(
      bridge,
      [
        { id: "c1", type: "function", function: { name: "mcp_s_greet", arguments: '{"name":"Ada"}' } },
        { id: "c2", type: "function", function: { name: "mcp_s_fails", arguments: "{}" } },
        { id: "c3", type: "function", function: { name: "mcp_s_throws", arguments: "" } },
        { id: "c4", type: "function", function: { name: "mcp_nope", arguments: "{}" } },
        { id: "c5", type: "function", function: { name: "mcp_s_greet", arguments: "{oops" } },
        { id: "c6", type: "function", function: { name: "mcp_s_greet", arguments: "[1]" } },
      ],
      { timeout: 1234 },
    );
    expect(messages.map((m) => m.tool_call_id)).toEqual(["c1", "c2", "c3", "c4", "c5", "c6"]);
    expect(messages[0]).toEqual({ role: "tool", tool_call_id: "c1", content: "Hello, Ada." });
    expect(messages[1]?.content).toBe("Error: disk full");
    expect(messages[2]?.content).toMatch(
      /^Error: The call to tool "mcp_s_throws" failed: socket hang up\..*\[ERROR\]$/,
    );
    expect(messages[3]?.content).toMatch(/^Error: Unknown tool "mcp_nope"\..*\[TOOL_NOT_FOUND\]$/);
    expect(messages[4]?.content).toMatch(
      /^Error: Cannot call tool "mcp_s_greet": the arguments are not valid JSON/,
    );
    expect(messages[5]?.content).toMatch(/must be a JSON object/);
    // Malformed arguments never reach the bridge; the rest get the options and onError: "result".
    expect(bridge.seen.map((s) => s.name)).toEqual([
      "mcp_s_greet",
      "mcp_s_fails",
      "mcp_s_throws",
      "mcp_nope",
    ]);
    expect(bridge.seen[2]?.args).toEqual({});
    expect(bridge.seen[0]?.options).toMatchObject({ timeout: 1234, onError: "result" });
  });

  it("maps strict-mode nulls back before the call, then the host's own mapping", async () => {
    const bridge = fakeBridge(1);
    const [message] = await executeOpenAIToolCalls(
      bridge,
      [{ id: "s", function: { name: "mcp_s_greet", arguments: '{"name":"Bo","polite":null}' } }],
      { strict: true, mapArguments: (_name, args) => ({ ...args, name: String(args.name).toUpperCase() }) },
    );
    expect(bridge.seen[0]?.args).toEqual({ name: "BO" });
    expect(message?.content).toBe("Hello, BO.");
  });

  it("a throwing argument mapper becomes an error result too", async () => {
    const [message] = await executeOpenAIToolCalls(
      fakeBridge(1),
      [{ id: "m", function: { name: "mcp_s_greet", arguments: "{}" } }],
      {
        mapArguments: () => {
          throw new Error("mapper broke");
        },
      },
    );
    expect(message?.content).toMatch(/^Error: .*mapper broke/);
  });
});

describe("executeAnthropicToolUses", () => {
  it("answers every tool_use block with a tool_result, concurrently, with is_error", {
    timeout: 5000,
  }, async () => {
    const bridge = fakeBridge(2);
    const blocks = [
      { type: "text", text: "Let me check." },
      { type: "tool_use", id: "u1", name: "mcp_s_greet", input: { name: "Cy", polite: true } },
      { type: "tool_use", id: "u2", name: "mcp_s_fails", input: {} },
      { type: "tool_use", id: "u3", name: "mcp_s_greet", input: "not an object" },
    ];
    expect(await executeAnthropicToolUses(bridge, blocks)).toEqual([
      { type: "tool_result", tool_use_id: "u1", content: "Hello, Cy!", is_error: false },
      { type: "tool_result", tool_use_id: "u2", content: "disk full", is_error: true },
      {
        type: "tool_result",
        tool_use_id: "u3",
        content: expect.stringMatching(/^Error: .*must be a JSON object/),
        is_error: true,
      },
    ]);
  });
});

describe("executeToolCalls", () => {
  it("tells the two shapes apart", async () => {
    const openai = await executeToolCalls(fakeBridge(1), [
      { id: "o", type: "function", function: { name: "mcp_s_greet", arguments: '{"name":"O"}' } },
    ]);
    expect(openai).toEqual([{ role: "tool", tool_call_id: "o", content: "Hello, O." }]);
    const anthropic = await executeToolCalls(fakeBridge(1), [
      { type: "tool_use", id: "a", name: "mcp_s_greet", input: { name: "A" } },
    ] as never);
    expect(anthropic).toEqual([
      { type: "tool_result", tool_use_id: "a", content: "Hello, A.", is_error: false },
    ]);
    expect(await executeToolCalls(fakeBridge(1), [])).toEqual([]);
  });
});

describe("toAnthropicTools", () => {
  it("maps to { name, description, input_schema } with the schema as given", () => {
    expect(toAnthropicTools([greet])).toEqual([
      { name: "mcp_s_greet", description: "[MCP:s] Greets", input_schema: greet.inputSchema },
    ]);
    expect(toAnthropicTools([greet])[0]?.input_schema).toBe(greet.inputSchema);
    // Anthropic requires a top-level object type; some servers leave it out.
    const untyped = { ...greet, inputSchema: { properties: {} } };
    expect(toAnthropicTools([untyped])[0]?.input_schema).toEqual({ type: "object", properties: {} });
  });
});
