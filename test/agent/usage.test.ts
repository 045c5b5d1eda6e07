import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/apps/agent/agent.js";
import { createAnthropicProvider } from "../../src/apps/agent/providers/anthropic-provider.js";
import { createOpenAIProvider } from "../../src/apps/agent/providers/openai-provider.js";
import type { Bridge } from "../../src/bridge/api.js";
import { startBridge } from "../../src/bridge/bridge.js";
import { inProcessEntry } from "../helpers/in-process.js";
import {
  type ScriptedEndpoint,
  startScriptedAnthropic,
  startScriptedOpenAI,
} from "../helpers/model-endpoints.js";

/** Each turn reports the tokens its model requests took, as the endpoint counted them. */

let bridge: Bridge;
const endpoints: ScriptedEndpoint[] = [];
beforeAll(async () => {
  bridge = await startBridge({ servers: { calc: inProcessEntry("normal") } });
}, 30_000);
afterAll(async () => {
  await Promise.all(endpoints.map((e) => e.close()));
  await bridge?.close();
});

const script = [
  { toolCalls: [{ id: "c1", name: "mcp_calc_add", arguments: '{"a":1,"b":2}' }] },
  { text: "3" },
];

describe("token usage", () => {
  it("OpenAI: asks for the counts (stream_options) and sums them over the turn's requests", async () => {
    const endpoint = await startScriptedOpenAI(script);
    endpoints.push(endpoint);
    const provider = createOpenAIProvider({ baseUrl: `${endpoint.url}/v1`, apiKey: "k", model: "m" });
    const turn = await new Agent({ bridge, provider }).run("add");
    expect(endpoint.requests[0]?.stream_options).toEqual({ include_usage: true });
    expect(turn.usage).toEqual({ inputTokens: 20, outputTokens: 10 });
  });

  it("Anthropic: input (cached included) from message_start, output from message_delta", async () => {
    const endpoint = await startScriptedAnthropic(script);
    endpoints.push(endpoint);
    const provider = createAnthropicProvider({ baseUrl: endpoint.url, apiKey: "k", model: "c" });
    const turn = await new Agent({ bridge, provider }).run("add");
    expect(turn.usage).toEqual({ inputTokens: 20, outputTokens: 10 });
  });
});
