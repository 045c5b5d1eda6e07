// An agent in a few lines: the bridge's tools offered to a model, which calls them until it can answer.
// Run: OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=... OPENAI_MODEL=gpt-4o-mini \
//      node dist/examples/agent-loop.js "What is 12 times 7, and then plus 3?"
// (or ANTHROPIC_API_KEY=... ANTHROPIC_MODEL=...; a local OpenAI-compatible server needs no key)
import { fileURLToPath } from "node:url";
import { Agent, providerFromEnvironment } from "../src/apps/agent/index.js";
import { McpBridge } from "../src/index.js";

const env = process.env;
if (!env.OPENAI_BASE_URL && !env.OPENAI_API_KEY && !env.ANTHROPIC_API_KEY) {
  console.error("Set OPENAI_BASE_URL and OPENAI_API_KEY (or ANTHROPIC_API_KEY) to run the agent loop.");
  process.exit(0);
}
const provider = providerFromEnvironment(
  { model: env.OPENAI_MODEL ?? env.ANTHROPIC_MODEL ?? "gpt-4o-mini" },
  env,
);

// The bundled example servers (this file runs from dist/examples/); $MCP_BRIDGE_CONFIG overrides them.
const bridge = await McpBridge.start({
  config: fileURLToPath(new URL("../../examples/mcp.json", import.meta.url)),
});
try {
  const agent = new Agent({
    bridge,
    provider,
    onEvent: (event) => {
      if (event.type === "text") process.stdout.write(event.text);
      if (event.type === "tool_start") console.error(`-> ${event.call.name}(${event.call.arguments})`);
    },
  });
  await agent.run(process.argv[2] ?? "What is 12 times 7, and then plus 3?");
  process.stdout.write("\n");
} finally {
  await bridge.close();
}
