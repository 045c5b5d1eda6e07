import { defineCommand } from "../command-spec.js";
import { chatDeclaration } from "../declarations/process-commands.js";

export const chatCommand = defineCommand({
  ...chatDeclaration,
  run: async (context) => (await import("../chat/run-chat.js")).runChat(context),
});
