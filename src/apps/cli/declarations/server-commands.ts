import { declareCommand } from "../command-spec.js";
import {
  CALL_FLAGS,
  CALL_POSITIONALS,
  PROMPT_FLAGS,
  PROMPT_POSITIONALS,
  PROMPTS_FLAGS,
  PROMPTS_POSITIONALS,
  READ_FLAGS,
  READ_POSITIONALS,
  RESOURCES_FLAGS,
  RESOURCES_POSITIONALS,
  STATUS_FLAGS,
  STATUS_POSITIONALS,
  TOOLS_FLAGS,
  TOOLS_POSITIONALS,
} from "../daemon-command-flags.js";

export const statusDeclaration = declareCommand({
  name: "status",
  summary: "start every enabled server and show its state (exit 1 if any failed)",
  flags: STATUS_FLAGS,
  positionals: STATUS_POSITIONALS,
  examples: ["status", "status --json", "status --verbose"],
});

export const toolsDeclaration = declareCommand({
  name: "tools",
  aliases: ["describe"],
  summary: "the tools as the LLM sees them; `describe TOOL` (or `tools TOOL`): one tool in full",
  flags: TOOLS_FLAGS,
  positionals: TOOLS_POSITIONALS,
  description:
    "With TOOL (exposed name or server/tool; also `mcp-bridge describe TOOL`): that tool's full description, every parameter with its type (unions and enums whole) and its input schema.",
  examples: [
    "tools",
    "tools --server calc",
    "tools --format openai",
    "tools mcp_calc_add",
    "describe calc/add --json",
  ],
});

export const callDeclaration = declareCommand({
  name: "call",
  summary: "call a tool by exposed name (mcp_<server>_<tool>) or <server>/<tool>",
  flags: CALL_FLAGS,
  description:
    'key=value values are converted by the tool\'s inputSchema: a string parameter gets the text as written (id=5 is "5"), a number or boolean parameter the parsed value. Progress notifications are shown on stderr. A running daemon for the config (`mcp-bridge daemon start`) answers the call unless --no-daemon is given.',
  positionals: CALL_POSITIONALS,
  examples: [
    "call mcp_calc_add a=2 b=3",
    'call calc/add --args \'{"a":2,"b":3}\'',
    "call slow/work --timeout 2m --json",
    "call docs/fetch url=https://example.com --full",
  ],
});

export const resourcesDeclaration = declareCommand({
  name: "resources",
  summary: "resources and resource templates of the connected servers",
  flags: RESOURCES_FLAGS,
  positionals: RESOURCES_POSITIONALS,
  examples: ["resources", "resources --server docs --json"],
});

export const readDeclaration = declareCommand({
  name: "read",
  summary: "a resource as the LLM reads it (blobs as placeholders)",
  flags: READ_FLAGS,
  positionals: READ_POSITIONALS,
  examples: ["read file:///README.md", "read docs://intro --server docs"],
});

export const promptsDeclaration = declareCommand({
  name: "prompts",
  summary: "prompts under their exposed names, with their arguments",
  flags: PROMPTS_FLAGS,
  positionals: PROMPTS_POSITIONALS,
  examples: ["prompts", "prompts --server docs"],
});

export const promptDeclaration = declareCommand({
  name: "prompt",
  summary: "a prompt's messages (exposed name or server/prompt)",
  flags: PROMPT_FLAGS,
  positionals: PROMPT_POSITIONALS,
  examples: ["prompt mcp_docs_summarize topic=billing"],
});
