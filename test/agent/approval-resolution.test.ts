import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeOpenAIToolCalls } from "../../src/adapters/execute.js";
import { findTool } from "../../src/adapters/resolve-call.js";
import { Agent } from "../../src/apps/agent/agent.js";
import { createOpenAIProvider } from "../../src/apps/agent/providers/openai-provider.js";
import type { Bridge, ToolEntry } from "../../src/bridge/api.js";
import { startBridge } from "../../src/bridge/bridge.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { type ScriptedEndpoint, startScriptedOpenAI } from "../helpers/model-endpoints.js";

/**
 * A prompt-injected model names tools in whatever spelling the bridge's call would accept. The
 * approval must be asked on the tool that then runs, whatever the spelling, and a tool the host did
 * not offer must not run at all. "Ran" is seen in the tool result the model gets back: `add` answers
 * with the sum, which no refusal or approval text contains.
 */

const endpoints: ScriptedEndpoint[] = [];
afterAll(async () => {
  await Promise.all(endpoints.map((e) => e.close()));
});

async function provider(calls: { id: string; name: string; arguments: string }[]) {
  const endpoint = await startScriptedOpenAI([{ toolCalls: calls }, { text: "done" }]);
  endpoints.push(endpoint);
  return createOpenAIProvider({ baseUrl: `${endpoint.url}/v1`, apiKey: "k-test", model: "m" });
}

const add = (id: string, name: string, a: number) => ({ id, name, arguments: `{"a":${a},"b":1000}` });

describe("agent: approval on the tool the call runs", () => {
  let bridge: Bridge;
  beforeAll(async () => {
    bridge = await startBridge({
      servers: { calc: inProcessEntry("normal"), other: inProcessEntry("normal") },
    });
  }, 30_000);
  afterAll(async () => {
    await bridge?.close();
  });

  it("every spelling of a tool's name is asked about as that tool; declined, none runs", async () => {
    const spellings = ["calc/add", "calc.add", "calc:add", "mcp_calc_add"];
    const asked: string[] = [];
    const agent = new Agent({
      bridge,
      provider: await provider(spellings.map((name, i) => add(`c${i}`, name, i + 1))),
      approve: (_call, entry) => {
        asked.push(`${entry.server}/${entry.tool}`);
        return false;
      },
    });
    await agent.run("add");
    expect(asked).toEqual(["calc/add", "calc/add", "calc/add", "calc/add"]);
    const results = agent.messages.filter((m) => m.role === "tool");
    expect(results).toHaveLength(4);
    for (const result of results) {
      expect(result.content).toMatch(/declined/);
      expect(result.content).not.toMatch(/100\d/);
    }
  });

  it("approved, exactly the resolved tool runs (server/tool of the second server runs there)", async () => {
    const seen: ToolEntry[] = [];
    const agent = new Agent({
      bridge,
      provider: await provider([add("c1", "other/add", 5)]),
      approve: (_call, entry) => {
        seen.push(entry);
        return true;
      },
    });
    await agent.run("add");
    expect(seen.map((e) => e.server)).toEqual(["other"]);
    expect(agent.messages.find((m) => m.role === "tool")?.content).toBe("1005");
  });

  it("a tool that is not offered (its server switched off) runs under no spelling and is not asked about", async () => {
    const asked: string[] = [];
    const agent = new Agent({
      bridge,
      provider: await provider([
        add("c1", "mcp_calc_add", 1),
        add("c2", "calc/add", 2),
        add("c3", "calc.add", 3),
      ]),
      tools: () => bridge.tools().filter((t) => t.server !== "calc"),
      approve: (call) => {
        asked.push(call.name);
        return true;
      },
    });
    await agent.run("add");
    expect(asked).toEqual([]);
    const results = agent.messages.filter((m) => m.role === "tool");
    expect(results).toHaveLength(3);
    for (const result of results) {
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/not offered.*"calc".*not run\..*\[TOOL_NOT_FOUND\]/);
    }
  });

  it("executeOpenAIToolCalls with `tools`: only offered tools run, and `approve` sees the resolved tool", async () => {
    const offered = bridge.tools().filter((t) => t.server === "other");
    const asked: string[] = [];
    const messages = await executeOpenAIToolCalls(
      bridge,
      [
        { id: "1", function: { name: "calc/add", arguments: '{"a":1,"b":1000}' } },
        { id: "2", function: { name: "other.add", arguments: '{"a":2,"b":1000}' } },
      ],
      {
        tools: offered,
        approve: (entry) => {
          asked.push(`${entry.server}/${entry.tool}`);
          return true;
        },
      },
    );
    expect(asked).toEqual(["other/add"]);
    expect(messages[0]?.content).toMatch(/TOOL_NOT_FOUND/);
    expect(messages[1]?.content).toBe("1002");
  });
});

describe("agent: a tool of a server still connecting", () => {
  let bridge: Bridge;
  beforeAll(async () => {
    bridge = await startBridge({
      servers: { late: stdioEntry("slow-start", {}, ["--delay", "1500"]) },
      wait: false,
    });
  }, 30_000);
  afterAll(async () => {
    await bridge?.close();
  });

  it("waits for the server, then asks about the tool before it runs; declined, it never runs", async () => {
    expect(bridge.server("late")?.state).toBe("connecting");
    const asked: string[] = [];
    const agent = new Agent({
      bridge,
      provider: await provider([add("c1", "late/add", 7), add("c2", "mcp_late_add", 8)]),
      approve: (_call, entry) => {
        asked.push(`${entry.server}/${entry.tool}`);
        return false;
      },
    });
    await agent.run("add");
    expect(asked).toEqual(["late/add", "late/add"]);
    for (const result of agent.messages.filter((m) => m.role === "tool")) {
      expect(result.content).toMatch(/declined/);
      expect(result.content).not.toMatch(/100\d/);
    }
  });
});

describe("findTool: which offered tool a model's name means", () => {
  const entry = (server: string, tool: string, name = `${server}_${tool}`) =>
    ({ server, tool, name }) as ToolEntry;

  it("the exposed name, or server and tool joined by / . or :", () => {
    const tools = [entry("calc", "add", "mcp_calc_add"), entry("fs", "read")];
    expect(findTool(tools, "mcp_calc_add")?.tool).toBe("add");
    for (const name of ["calc/add", "calc.add", "calc:add"])
      expect(findTool(tools, name)?.server).toBe("calc");
    expect(findTool(tools, "calc_add")).toBeUndefined();
    expect(findTool(tools, "calc/")).toBeUndefined();
  });

  it("a spelling that fits two tools means neither", () => {
    const tools = [entry("a", "b.c"), entry("a.b", "c")];
    expect(findTool(tools, "a.b.c")).toBeUndefined();
    expect(findTool(tools, "a/b.c")?.server).toBe("a");
  });
});
