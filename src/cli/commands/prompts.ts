import { plainText } from "../../util/plain-text.js";
import { parseKeyValues, usageError } from "../args.js";
import { defineCommand, SERVER_FLAG, TIMEOUT_FLAG } from "../command.js";
import { type CommandContext, openBridge } from "../context.js";
import { shorten, table, writeJson } from "../output.js";
import { reportFailedServers, timeoutOption } from "./resources.js";

/** `mcp-bridge prompts [--server S]`: every connected server's prompts under their exposed names. */
async function runPrompts(context: CommandContext): Promise<number> {
  const server = context.options.server as string | undefined;
  const bridge = await openBridge(context, server ? { only: [server] } : {});
  try {
    if (server && !bridge.server(server)) throw usageError(`No server named "${server}" in the config`);
    const prompts = await bridge.prompts(server ? { server } : {});
    if (context.global.json) writeJson(context.io, { prompts });
    else {
      const rows = prompts.map((p) => [
        p.name,
        plainText(p.server, 100),
        plainText(p.prompt, 100),
        p.arguments.map((a) => `${plainText(a.name, 60)}${a.required ? "" : "?"}`).join(", "),
        shorten(plainText(p.description ?? p.title ?? ""), 50),
      ]);
      context.io.stdout.write(
        prompts.length === 0
          ? "No prompts.\n"
          : `${table(["NAME", "SERVER", "PROMPT", "ARGUMENTS", "DESCRIPTION"], rows, context.style)}\n`,
      );
    }
    return reportFailedServers(context, bridge);
  } finally {
    await bridge.close();
  }
}

/** `mcp-bridge prompt NAME [key=value ...]`: the prompt's messages. */
async function runPrompt(context: CommandContext): Promise<number> {
  const [name, ...pairs] = context.positionals;
  if (!name) throw usageError("Usage: mcp-bridge prompt NAME [key=value ...] [--server NAME]");
  // Prompt arguments are strings: `n=5` stays "5".
  const args = Object.fromEntries(
    Object.entries(parseKeyValues(pairs)).map(([key, value]) => [
      key,
      typeof value === "string" ? value : JSON.stringify(value),
    ]),
  );
  const server = context.options.server as string | undefined;
  const timeout = timeoutOption(context);
  const bridge = await openBridge(context, server ? { only: [server] } : {});
  try {
    const messages = await bridge.getPrompt(name, args, {
      ...(server ? { server } : {}),
      ...(timeout === undefined ? {} : { timeout }),
      ...(context.io.signal ? { signal: context.io.signal } : {}),
    });
    if (context.global.json) writeJson(context.io, messages);
    else {
      const tty = context.io.stdout.isTTY === true;
      const out = messages.messages.map((message) => {
        const text = tty ? plainText(message.text, Number.POSITIVE_INFINITY) : message.text;
        return `${context.style.bold(`${message.role}:`)}\n${text}\n`;
      });
      context.io.stdout.write(out.length === 0 ? "No messages.\n" : `${out.join("\n")}`);
    }
    return 0;
  } finally {
    await bridge.close();
  }
}

export const promptsCommand = defineCommand({
  name: "prompts",
  summary: "prompts under their exposed names, with their arguments",
  flags: { server: SERVER_FLAG },
  positionals: { usage: "", min: 0, max: 0 },
  examples: ["prompts", "prompts --server docs"],
  run: runPrompts,
});

export const promptCommand = defineCommand({
  name: "prompt",
  summary: "a prompt's messages (exposed name or server/prompt)",
  flags: { server: SERVER_FLAG, timeout: TIMEOUT_FLAG },
  positionals: { usage: "NAME [key=value ...]", min: 1, max: Number.POSITIVE_INFINITY },
  examples: ["prompt mcp_docs_summarize topic=billing"],
  run: runPrompt,
});
