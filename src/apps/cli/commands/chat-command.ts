import { defineCommand } from "../command-spec.js";

export const chatCommand = defineCommand({
  name: "chat",
  summary: "talk to a model that uses every server's tools (/help inside)",
  flags: {
    model: {
      type: "string",
      short: "m",
      value: "MODEL",
      description: "the model (default: from the environment)",
    },
    provider: {
      type: "choice",
      choices: ["openai", "anthropic"],
      value: "NAME",
      description: "openai or anthropic (default: from the API key found)",
    },
    "base-url": { type: "string", value: "URL", description: "an OpenAI-compatible endpoint (local models)" },
    system: { type: "string", value: "TEXT", description: "the system prompt" },
    print: {
      type: "string",
      short: "p",
      value: "QUESTION",
      description: "print one answer and exit (--json: the transcript)",
    },
    yes: {
      type: "boolean",
      short: "y",
      description: "run tools and answer servers' sampling requests without asking",
    },
    "code-mode": {
      type: "boolean",
      description:
        "give the model three tools (search_tools, describe_tools, execute_code) and let it write programs that call the servers' tools in a sandbox",
    },
  },
  positionals: { usage: "", min: 0, max: 0 },
  examples: [
    "chat",
    'chat -p "What is 2+3?" --yes',
    "chat --base-url http://127.0.0.1:11434/v1 --model llama3.1",
  ],
  // The agent, the model providers and the terminal UI load only when chat runs (not for --help).
  run: async (context) => (await import("../chat/run-chat.js")).runChat(context),
});
