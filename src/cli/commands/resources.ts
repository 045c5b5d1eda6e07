import type { Bridge } from "../../bridge/types.js";
import { parseDuration } from "../../util/duration.js";
import { plainText } from "../../util/plain-text.js";
import { usageError } from "../args.js";
import { defineCommand, SERVER_FLAG, TIMEOUT_FLAG } from "../command.js";
import { type CommandContext, openBridge } from "../context.js";
import { shorten, table, writeJson } from "../output.js";

/** `mcp-bridge resources [--server S]`: resources and resource templates of every connected server. */
async function runResources(context: CommandContext): Promise<number> {
  const server = context.options.server as string | undefined;
  const bridge = await openBridge(context, server ? { only: [server] } : {});
  try {
    if (server && !bridge.server(server)) throw usageError(`No server named "${server}" in the config`);
    const filter = server ? { server } : {};
    const [resources, templates] = await Promise.all([
      bridge.resources(filter),
      bridge.resourceTemplates(filter),
    ]);
    if (context.global.json) writeJson(context.io, { resources, templates });
    else {
      const rows = [
        ...resources.map((r) => [
          plainText(r.uri, 200),
          plainText(r.server, 100),
          plainText(r.title ?? r.name, 100),
          plainText(r.mimeType ?? "", 60),
          shorten(plainText(r.description ?? ""), 50),
        ]),
        ...templates.map((t) => [
          plainText(t.uriTemplate, 200),
          plainText(t.server, 100),
          plainText(t.title ?? t.name, 100),
          plainText(t.mimeType ?? "", 60),
          shorten(plainText(`(template) ${t.description ?? ""}`), 50),
        ]),
      ];
      context.io.stdout.write(
        rows.length === 0
          ? "No resources.\n"
          : `${table(["URI", "SERVER", "NAME", "MIME TYPE", "DESCRIPTION"], rows, context.style)}\n`,
      );
    }
    return reportFailedServers(context, bridge);
  } finally {
    await bridge.close();
  }
}

/** `mcp-bridge read URI [--server S]`: one resource as the LLM would read it. */
async function runRead(context: CommandContext): Promise<number> {
  const [uri] = context.positionals;
  if (!uri) throw usageError("Usage: mcp-bridge read URI [--server NAME] [--timeout DURATION]");
  const server = context.options.server as string | undefined;
  const timeout = timeoutOption(context);
  const bridge = await openBridge(context, server ? { only: [server] } : {});
  try {
    if (server && !bridge.server(server)) throw usageError(`No server named "${server}" in the config`);
    const content = await bridge.readResource(uri, {
      ...(server ? { server } : {}),
      ...(timeout === undefined ? {} : { timeout }),
      ...(context.io.signal ? { signal: context.io.signal } : {}),
    });
    if (context.global.json) {
      writeJson(context.io, {
        server: content.server,
        uri: content.uri,
        text: content.text,
        parts: content.parts.map(({ bytes: _bytes, ...part }) => part),
        ...(content.truncated ? { truncated: content.truncated } : {}),
      });
    } else {
      const text = context.io.stdout.isTTY ? plainText(content.text, Number.POSITIVE_INFINITY) : content.text;
      context.io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    }
    return 0;
  } finally {
    await bridge.close();
  }
}

export function timeoutOption(context: CommandContext): number | undefined {
  if (context.options.timeout === undefined) return undefined;
  try {
    return parseDuration(String(context.options.timeout), "s");
  } catch (error) {
    throw usageError(`--timeout ${(error as Error).message}`);
  }
}

export function reportFailedServers(context: CommandContext, bridge: Bridge): number {
  const failed = bridge.servers().filter((s) => s.state === "failed");
  for (const s of failed)
    context.logger.warn(`Server "${s.name}" is not connected: ${s.lastError?.message ?? "failed"}`);
  return failed.length > 0 ? 1 : 0;
}

export const resourcesCommand = defineCommand({
  name: "resources",
  summary: "resources and resource templates of the connected servers",
  flags: { server: SERVER_FLAG },
  positionals: { usage: "", min: 0, max: 0 },
  examples: ["resources", "resources --server docs --json"],
  run: runResources,
});

export const readCommand = defineCommand({
  name: "read",
  summary: "a resource as the LLM reads it (blobs as placeholders)",
  flags: { server: SERVER_FLAG, timeout: TIMEOUT_FLAG },
  positionals: { usage: "URI", min: 1, max: 1 },
  examples: ["read file:///README.md", "read docs://intro --server docs"],
  run: runRead,
});
