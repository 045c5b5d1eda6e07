import { attach } from "../attach-entry.js";
import { defineCommand } from "../command-spec.js";
import { attachDeclaration } from "../declarations/process-commands.js";

export const attachCommand = defineCommand({
  ...attachDeclaration,
  run: async (context) => {
    // process-entry runs attach before the full CLI loads; this is the same command run in-process.
    const { stdin } = context.io;
    if (!stdin) return 2;
    const mode = {
      idleMs: context.options.idle,
      codeMode: context.options["code-mode"] === true,
      llmResults: context.options["llm-results"] === true,
    };
    return attach(context.global, mode, { ...context.io, stdin });
  },
});
