// A complete agent loop: the bridge's tools offered to any OpenAI-compatible Chat Completions endpoint.
// Run: OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=... OPENAI_MODEL=gpt-4o-mini \
//      node dist/examples/agent-loop.js "What is 12 times 7, and then plus 3?"
import { fileURLToPath } from "node:url";
import { executeOpenAIToolCalls, McpBridge, type OpenAIToolCall, toOpenAITools } from "../src/index.js";

const { OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: apiKey, OPENAI_MODEL: model = "gpt-4o-mini" } = process.env;
if (!baseUrl || !apiKey) {
  console.error(
    "Set OPENAI_BASE_URL and OPENAI_API_KEY (and optionally OPENAI_MODEL) to run the agent loop.",
  );
  process.exit(0);
}

type Message = { role: string; content: string | null; tool_calls?: OpenAIToolCall[]; tool_call_id?: string };

// The bundled example servers (this file runs from dist/examples/); $MCP_BRIDGE_CONFIG overrides them.
const config = fileURLToPath(new URL("../../examples/mcp.json", import.meta.url));
await using bridge = await McpBridge.start({ config });
const tools = toOpenAITools(bridge.tools());
const messages: Message[] = [
  { role: "user", content: process.argv[2] ?? "What is 12 times 7, and then plus 3?" },
];

for (let turn = 0; turn < 8; turn++) {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ model, messages, tools }),
  });
  if (!response.ok)
    throw new Error(`The model endpoint answered HTTP ${response.status}: ${await response.text()}`);
  const reply = ((await response.json()) as { choices: { message: Message }[] }).choices[0]?.message;
  if (!reply) throw new Error("The model returned no message");
  messages.push(reply);
  if (!reply.tool_calls?.length) {
    console.log(reply.content);
    break;
  }
  for (const call of reply.tool_calls) console.error(`-> ${call.function.name}(${call.function.arguments})`);
  messages.push(...(await executeOpenAIToolCalls(bridge, reply.tool_calls)));
}
