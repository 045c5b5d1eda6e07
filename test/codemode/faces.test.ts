import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toAnthropicTools } from "../../src/adapters/anthropic.js";
import { executeOpenAIToolCalls } from "../../src/adapters/execute.js";
import { toGeminiTools } from "../../src/adapters/gemini.js";
import { toOpenAITools } from "../../src/adapters/openai.js";
import { startGateway } from "../../src/apps/gateway/index.js";
import type { Bridge } from "../../src/bridge/api.js";
import { startBridge } from "../../src/bridge/bridge.js";
import { codeModeBridge } from "../../src/codemode/code-mode-bridge.js";
import { codeModeTools } from "../../src/codemode/meta-tools.js";
import { anthropicProblems, geminiProblems, openAIProblems } from "../adapters/vendor-constraints.js";
import { connect, textOf } from "../gateway/client.js";
import { inProcessEntry } from "../helpers/in-process.js";

let bridge: Bridge;
beforeAll(async () => {
  bridge = await startBridge({
    servers: { calc: inProcessEntry("normal"), slow: inProcessEntry("slow-tool") },
    catalogCache: false,
  });
}, 30_000);
afterAll(() => bridge?.close());

describe("the code-mode meta-tools", () => {
  it("are three tools valid for every vendor export", () => {
    const tools = codeModeTools(bridge);
    expect(tools.map((t) => t.name)).toEqual(["search_tools", "describe_tools", "execute_code"]);
    expect(toOpenAITools(tools).flatMap(openAIProblems)).toEqual([]);
    expect(toAnthropicTools(tools).flatMap(anthropicProblems)).toEqual([]);
    expect(toGeminiTools(tools).flatMap(geminiProblems)).toEqual([]);
    expect(codeModeTools(bridge, { prefix: "mcp_" }).map((t) => t.name)).toEqual([
      "mcp_search_tools",
      "mcp_describe_tools",
      "mcp_execute_code",
    ]);
  });

  it("search answers one-line signatures, describe their declarations, execute runs a program", async () => {
    const [search, describeTools, execute] = codeModeTools(bridge);
    const found = await search?.call({ query: "divide" });
    expect(found?.text).toContain("tools.calc.divide(args: { a: number; b: number");
    expect((found?.structuredContent as { tools: string[] } | undefined)?.tools[0]).toBe("calc.divide");
    const declared = await describeTools?.call({ names: ["calc.divide", "calc/add", "nope.nothing"] });
    expect(declared?.text).toContain("namespace calc {");
    expect(declared?.text).toMatch(
      /function divide\(args: \{[\s\S]*a: number;[\s\S]*\}\): Promise<\{[\s\S]*quotient: number;/,
    );
    expect(declared?.text).toContain("function add(");
    expect(declared?.text).toContain("Unknown: nope.nothing");
    const ran = await execute?.call({
      code: `const r = await tools.calc.divide({ a: 10, b: 4 }); console.log("q =", r.quotient); return r;`,
    });
    expect(ran).toMatchObject({ isError: false });
    expect(ran?.text).toBe('q = 2.5\n{\n  "quotient": 2.5\n}');
  });

  it("execute_code reports a failure as an error result the model can read", async () => {
    const [, , execute] = codeModeTools(bridge, { cpuMs: 200 });
    const result = await execute?.call({ code: "for (;;) {}" });
    expect(result?.isError).toBe(true);
    expect(result?.text).toMatch(/^Error: The program was stopped: .*CPU time.* \[CODE_LIMIT\]$/);
    const thrown = await execute?.call({ code: "throw new Error('nope')" });
    expect(thrown?.text).toMatch(/The program threw: Error: nope.*\[CODE_FAILED\]/);
  });

  it("caps what the model reads like any tool result", async () => {
    const [, , execute] = codeModeTools(bridge, { maxResultChars: 1000 });
    const result = await execute?.call({ code: `for (let i = 0; i < 500; i++) console.log("line " + i);` });
    expect(result?.text.length).toBeLessThanOrEqual(1000);
    expect(result?.truncated?.droppedChars).toBeGreaterThan(0);
  });

  it("run through the executors as ordinary tools", async () => {
    const view = codeModeBridge(bridge);
    const [message] = await executeOpenAIToolCalls(view, [
      {
        id: "1",
        type: "function",
        function: {
          name: "execute_code",
          arguments: JSON.stringify({ code: "return (await tools.calc.add({ a: 1, b: 2 })).text" }),
        },
      },
    ]);
    expect(message?.content).toBe('"3"');
  });
});

describe("serve --code-mode: the gateway serves the three tools only", () => {
  it("lists three tools and runs a program that calls two servers", async () => {
    const gateway = await startGateway({ bridge: codeModeBridge(bridge) });
    try {
      await using client = await connect(gateway.url, "2026-07-28", undefined);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(["describe_tools", "execute_code", "search_tools"]);
      const result = await client.callTool({
        name: "execute_code",
        arguments: {
          code: `const [sum, slept] = await Promise.all([tools.calc.add({ a: 20, b: 22 }), tools.slow.sleep({ ms: 10 })]);
                 console.log(sum.text, slept.text);`,
        },
      });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toBe("42 slept");
      // A server tool is not callable directly through this face.
      const direct = await client
        .callTool({ name: bridge.tools()[0]?.name ?? "x", arguments: {} })
        .catch((e) => e);
      expect(direct instanceof Error || (direct as { isError?: boolean }).isError).toBe(true);
    } finally {
      await gateway.close();
    }
  });
});
