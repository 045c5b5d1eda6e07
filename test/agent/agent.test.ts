import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, type AgentEvent } from "../../src/apps/agent/agent.js";
import type { ModelProvider } from "../../src/apps/agent/model-provider.js";
import { createAnthropicProvider } from "../../src/apps/agent/providers/anthropic-provider.js";
import { createOpenAIProvider } from "../../src/apps/agent/providers/openai-provider.js";
import { providerFromEnvironment } from "../../src/apps/agent/select-provider.js";
import type { Bridge } from "../../src/bridge/api.js";
import { startBridge } from "../../src/bridge/bridge.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import {
  type ScriptedEndpoint,
  startScriptedAnthropic,
  startScriptedOpenAI,
} from "../helpers/model-endpoints.js";

let bridge: Bridge;
const endpoints: ScriptedEndpoint[] = [];

beforeAll(async () => {
  bridge = await startBridge({
    servers: {
      calc: inProcessEntry("normal"),
      slow: inProcessEntry("slow-tool"),
      fragile: stdioEntry("crash-on-tool", { restart: { initialDelay: "20ms" } }),
    },
  });
}, 30_000);
afterAll(async () => {
  await Promise.all(endpoints.map((e) => e.close()));
  await bridge?.close();
});

async function openai(script: Parameters<typeof startScriptedOpenAI>[0]) {
  const endpoint = await startScriptedOpenAI(script);
  endpoints.push(endpoint);
  return {
    endpoint,
    provider: createOpenAIProvider({ baseUrl: `${endpoint.url}/v1`, apiKey: "k-test", model: "m" }),
  };
}

async function anthropic(script: Parameters<typeof startScriptedAnthropic>[0]) {
  const endpoint = await startScriptedAnthropic(script);
  endpoints.push(endpoint);
  return {
    endpoint,
    provider: createAnthropicProvider({ baseUrl: endpoint.url, apiKey: "k-test", model: "claude" }),
  };
}

function agentWith(provider: ModelProvider, events: AgentEvent[] = []) {
  return new Agent({ bridge, provider, onEvent: (event) => events.push(event) });
}

const twoCallsThenAnswer = [
  {
    text: "Let me compute.",
    toolCalls: [
      { id: "c1", name: "mcp_calc_add", arguments: '{"a":20,"b":22}' },
      { id: "c2", name: "mcp_calc_greet", arguments: '{"name":"Ada"}' },
      { id: "c3", name: "mcp_calc_nope", arguments: "{}" },
    ],
  },
  (body: Record<string, unknown>) => {
    const sent = JSON.stringify(body);
    return {
      text: sent.includes("42") && sent.includes("Hello, Ada!") ? "The sum is 42." : "tool results missing",
    };
  },
];

describe.each([
  ["OpenAI-compatible", openai],
  ["Anthropic", anthropic],
] as const)("agent over %s streaming", (_name, start) => {
  it("streams text, runs parallel tool calls (one unknown) and sends results back", async () => {
    const { endpoint, provider } = await start(twoCallsThenAnswer);
    const events: AgentEvent[] = [];
    const agent = agentWith(provider, events);
    const turn = await agent.run("What is 20 + 22? Also greet Ada.");
    expect(turn).toMatchObject({ text: "The sum is 42.", steps: 2 });
    const streamed = events.filter((e) => e.type === "text").map((e) => (e as { text: string }).text);
    expect(streamed.length).toBeGreaterThan(2);
    expect(streamed.join("")).toBe("Let me compute.The sum is 42.");
    const ends = events.filter((e) => e.type === "tool_end") as Extract<AgentEvent, { type: "tool_end" }>[];
    expect(ends.map((e) => [e.call.name, e.result.isError])).toEqual(
      expect.arrayContaining([
        ["mcp_calc_add", false],
        ["mcp_calc_greet", false],
        ["mcp_calc_nope", true],
      ]),
    );
    expect(ends.find((e) => e.call.name === "mcp_calc_nope")?.result.text).toContain("TOOL_NOT_FOUND");
    expect(endpoint.requests).toHaveLength(2);
    expect(JSON.stringify(endpoint.requests[0]?.tools)).toContain("mcp_calc_add");
    expect(agent.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "tool",
      "tool",
      "assistant",
    ]);
  });

  it("a malformed tool-argument JSON and a crashed server become tool results; the turn goes on", async () => {
    const { provider } = await start([
      {
        toolCalls: [
          { id: "b1", name: "mcp_calc_add", arguments: '{"a":1,' },
          { id: "b2", name: "mcp_fragile_crash", arguments: "{}" },
        ],
      },
      { text: "Both failed." },
    ]);
    const events: AgentEvent[] = [];
    const turn = await agentWith(provider, events).run("try");
    expect(turn.text).toBe("Both failed.");
    const ends = events.filter((e) => e.type === "tool_end") as Extract<AgentEvent, { type: "tool_end" }>[];
    expect(ends.every((e) => e.result.isError)).toBe(true);
    expect(ends.find((e) => e.call.id === "b1")?.result.text).toMatch(/not valid JSON/);
    expect(ends.find((e) => e.call.id === "b2")?.result.text).toMatch(/SERVER_CRASHED|SERVER_UNAVAILABLE/);
  });
});

describe("agent: progress, cancellation, limits", () => {
  it("passes a slow tool's progress notifications on as events", async () => {
    const { provider } = await openai([
      { toolCalls: [{ id: "p1", name: "mcp_slow_progress", arguments: '{"steps":3,"intervalMs":20}' }] },
      { text: "done" },
    ]);
    const events: AgentEvent[] = [];
    await agentWith(provider, events).run("go");
    const progress = events.filter((e) => e.type === "tool_progress") as Extract<
      AgentEvent,
      { type: "tool_progress" }
    >[];
    expect(progress.map((e) => e.progress.progress)).toEqual([1, 2, 3]);
  });

  it("cancelling a turn aborts the running tool call, and the server hears notifications/cancelled", async () => {
    const before = Number((await bridge.call("slow/cancelled")).text);
    const { provider } = await openai([
      { toolCalls: [{ id: "s1", name: "mcp_slow_sleep", arguments: '{"ms":20000}' }] },
    ]);
    const controller = new AbortController();
    const agent = new Agent({
      bridge,
      provider,
      onEvent: (event) => {
        if (event.type === "tool_start") setTimeout(() => controller.abort(), 100);
      },
    });
    await expect(agent.run("sleep", { signal: controller.signal })).rejects.toMatchObject({
      code: "ABORTED",
    });
    await expect
      .poll(async () => Number((await bridge.call("slow/cancelled")).text), { timeout: 5000 })
      .toBe(before + 1);
    // The conversation stays valid for the next turn: the call is answered, as cancelled by the
    // person (not as the tool's error, which the model would quote back).
    expect(agent.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "s1", isError: false });
    expect(agent.messages.at(-1)?.content).toBe(
      "The user cancelled this call while it ran; it may or may not have taken effect.",
    );
  });

  it("stops a model that never stops calling tools at the step limit", async () => {
    const loop = Array.from({ length: 5 }, () => ({
      toolCalls: [{ id: "x", name: "mcp_calc_echo", arguments: '{"text":"again"}' }],
    }));
    const { endpoint, provider } = await openai(loop);
    const turn = await new Agent({ bridge, provider, maxSteps: 3 }).run("loop");
    expect(turn.stopReason).toBe("max_steps");
    expect(endpoint.requests).toHaveLength(3);
  });

  it("asks for approval and tells the model when the user declines", async () => {
    const { provider } = await openai([
      { toolCalls: [{ id: "a1", name: "mcp_calc_add", arguments: '{"a":1,"b":2}' }] },
      (body) => ({ text: JSON.stringify(body).includes("declined") ? "ok, not run" : "ran anyway" }),
    ]);
    const asked: string[] = [];
    const agent = new Agent({
      bridge,
      provider,
      approve: (call) => {
        asked.push(call.name);
        return false;
      },
    });
    expect((await agent.run("add")).text).toBe("ok, not run");
    expect(asked).toEqual(["mcp_calc_add"]);
  });
});

describe("agent: a failing model endpoint is a clear MODEL_REQUEST error", () => {
  it("endpoint down", async () => {
    const closed = await startScriptedOpenAI([]);
    await closed.close();
    const provider = createOpenAIProvider({ baseUrl: `${closed.url}/v1`, model: "m", apiKey: "k" });
    await expect(agentWith(provider).run("hi")).rejects.toMatchObject({
      code: "MODEL_REQUEST",
      message: expect.stringMatching(/Cannot reach .*127\.0\.0\.1:\d+ \(ECONNREFUSED\)/),
    });
  });

  it("401 says to check the key, and never echoes the key we sent", async () => {
    const { provider } = await openai([{ status: 401 }]);
    const error: Error = await agentWith(provider)
      .run("hi")
      .then(
        () => new Error("the turn did not fail"),
        (e: unknown) => e as Error,
      );
    expect(error).toMatchObject({ code: "MODEL_REQUEST" });
    expect(error.message).toMatch(/HTTP 401.*Check the API key/);
    expect(error.message).not.toContain("k-test");
  });

  it("a malformed stream, a stream cut short, and an Anthropic error event", async () => {
    const { provider: bad } = await openai([{ raw: "data: {not json\n\n" }]);
    await expect(agentWith(bad).run("hi")).rejects.toMatchObject({
      code: "MODEL_REQUEST",
      message: /malformed event/,
    });
    const { provider: cut } = await openai([{ text: "partial answer", breakAfter: 2 }]);
    await expect(agentWith(cut).run("hi")).rejects.toMatchObject({
      code: "MODEL_REQUEST",
      message: /ended before/,
    });
    const { provider: overloaded } = await anthropic([
      {
        raw: 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      },
    ]);
    await expect(agentWith(overloaded).run("hi")).rejects.toMatchObject({
      message: /overloaded_error: Overloaded/,
    });
  });

  it("sends the key in each vendor's header", async () => {
    const { endpoint: o, provider: op } = await openai([{ text: "a" }]);
    await agentWith(op).run("hi");
    expect(o.headers[0]?.authorization).toBe("Bearer k-test");
    const { endpoint: a, provider: ap } = await anthropic([{ text: "a" }]);
    await agentWith(ap).run("hi");
    expect(a.headers[0]?.["x-api-key"]).toBe("k-test");
    expect(a.headers[0]?.["anthropic-version"]).toBe("2023-06-01");
  });
});

describe("providerFromEnvironment", () => {
  it("picks the provider from flags, then the environment, and says which variable is missing", () => {
    expect(providerFromEnvironment({}, { OPENAI_API_KEY: "k", OPENAI_MODEL: "gpt" })).toMatchObject({
      name: "openai",
      model: "gpt",
    });
    expect(providerFromEnvironment({}, { ANTHROPIC_API_KEY: "k", ANTHROPIC_MODEL: "c" })).toMatchObject({
      name: "anthropic",
    });
    expect(
      providerFromEnvironment({ model: "llama3" }, { OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" }).name,
    ).toBe("openai");
    expect(() => providerFromEnvironment({}, {})).toThrow(/OPENAI_API_KEY/);
    expect(() => providerFromEnvironment({ provider: "anthropic" }, {})).toThrow(/ANTHROPIC_API_KEY/);
    expect(() => providerFromEnvironment({}, { OPENAI_API_KEY: "k" })).toThrow(/--model or OPENAI_MODEL/);
  });
});
