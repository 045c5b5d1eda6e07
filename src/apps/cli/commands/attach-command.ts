import { ATTACH_DEFAULT_IDLE, ATTACH_FLAGS, ATTACH_POSITIONALS, attach } from "../attach-entry.js";
import { defineCommand } from "../command-spec.js";

export const attachCommand = defineCommand({
  name: "attach",
  summary: "serve MCP on stdin/stdout from the config's daemon: every session shares one set of servers",
  flags: ATTACH_FLAGS,
  positionals: ATTACH_POSITIONALS,
  description: `Configure it in a host in place of \`serve --stdio\` ({"command": "mcp-bridge", "args": ["attach"]}). It starts no server itself: it connects to the daemon for the config (starting one, idle stop ${ATTACH_DEFAULT_IDLE}, when none runs) and relays the host's MCP session to it, so every host session and CLI command shares one set of upstream processes, one tool cache and one OAuth state. The daemon stays up while a session is attached; when it stops or crashes, attach reconnects (starting a new one), answers the requests that were running with an error and tells the host the lists changed. Tools are named as serve names them (<server>_<tool>, or the config's serveToolNameFormat), whatever names the CLI uses.`,
  examples: ["attach", "attach -c ./mcp.json", "attach --idle 1h", "attach --code-mode"],
  run: async (context) => {
    // process-entry runs attach before the full CLI loads; this is the same command run in-process.
    const { stdin } = context.io;
    if (!stdin) return 2;
    const mode = { idleMs: context.options.idle, codeMode: context.options["code-mode"] === true };
    return attach(context.global, mode, { ...context.io, stdin });
  },
});
