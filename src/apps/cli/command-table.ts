import { type CommandSpec, defineCommand } from "./command-spec.js";
import { addCommand, removeCommand } from "./commands/add-remove-command.js";
import { attachCommand } from "./commands/attach-command.js";
import { auditCommand } from "./commands/audit-command.js";
import { authCommand } from "./commands/auth-command.js";
import { callCommand } from "./commands/call-command.js";
import { chatCommand } from "./commands/chat-command.js";
import { configCommand } from "./commands/config-command.js";
import { daemonCommand } from "./commands/daemon-command.js";
import { listCommand } from "./commands/list-command.js";
import { pinsCommand } from "./commands/pins-command.js";
import { promptCommand, promptsCommand } from "./commands/prompts-command.js";
import { quarantineCommand } from "./commands/quarantine-command.js";
import { advisoriesCommand, searchCommand, updateCommand } from "./commands/registry-commands.js";
import { readCommand, resourcesCommand } from "./commands/resources-command.js";
import { sandboxCommand } from "./commands/sandbox-command.js";
import { secretsCommand } from "./commands/secrets-command.js";
import { serveCommand } from "./commands/serve-command.js";
import { statusCommand } from "./commands/status-command.js";
import { toolsCommand } from "./commands/tools-command.js";
import { trustCommand } from "./commands/trust-command.js";
import { completionScript, type Shell } from "./completion.js";
import { completionDeclaration } from "./declarations/process-commands.js";
import { writeJson } from "./output.js";

const BASE_COMMANDS: readonly CommandSpec[] = [
  listCommand,
  addCommand,
  removeCommand,
  searchCommand,
  updateCommand,
  advisoriesCommand,
  statusCommand,
  toolsCommand,
  callCommand,
  resourcesCommand,
  readCommand,
  promptsCommand,
  promptCommand,
  configCommand,
  serveCommand,
  attachCommand,
  chatCommand,
  authCommand,
  trustCommand,
  secretsCommand,
  quarantineCommand,
  pinsCommand,
  auditCommand,
  sandboxCommand,
  daemonCommand,
] as unknown as readonly CommandSpec[];

/** `mcp-bridge completion bash|zsh|fish`: generated from the declarations above. */
const completionCommand = defineCommand({
  ...completionDeclaration,
  run: async (context) => {
    const shell = context.positionals[0] as Shell;
    const script = completionScript(shell, COMMANDS);
    if (context.global.json) writeJson(context.io, { shell, script });
    else context.io.stdout.write(script);
    return 0;
  },
});

/** Every command, in the order of `mcp-bridge --help`. */
export const COMMANDS: readonly CommandSpec[] = [
  ...BASE_COMMANDS,
  completionCommand as unknown as CommandSpec,
];

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((command) => command.name === name || command.aliases?.includes(name));
}
