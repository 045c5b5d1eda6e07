import { Client } from "@modelcontextprotocol/client";
import { loadConfig } from "../../../config/load.js";
import type { StdioServerDefinition } from "../../../config/model.js";
import { learnNotStdio } from "../../../errors/index.js";
import { learnSandbox } from "../../../transport/sandbox/learn-run.js";
import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
import { sandboxDeclaration } from "../declarations/process-commands.js";
import { writeJson } from "../output.js";
import { clean } from "../terminal-ask.js";
import { badLearnCall } from "../usage-errors.js";

interface LearnCall {
  readonly tool: string;
  readonly args: Record<string, unknown>;
}

interface CallOutcome {
  readonly tool: string;
  readonly ok: boolean;
}

/** `TOOL` or `TOOL={"json":"object"}` (split at the first `=`: a tool name has none). */
export function parseLearnCall(value: string): LearnCall {
  const at = value.indexOf("=");
  const tool = (at < 0 ? value : value.slice(0, at)).trim();
  if (tool === "") throw badLearnCall({ value, reason: "the tool's name is missing" });
  if (at < 0) return { tool, args: {} };
  let args: unknown;
  try {
    args = JSON.parse(value.slice(at + 1));
  } catch (error) {
    throw badLearnCall({ value, reason: (error as Error).message });
  }
  if (typeof args !== "object" || args === null || Array.isArray(args))
    throw badLearnCall({ value, reason: "the arguments are not a JSON object" });
  return { tool, args: args as Record<string, unknown> };
}

async function findServer(context: CommandContext, name: string): Promise<StdioServerDefinition> {
  const config = await loadConfig({ path: context.global.config, cwd: context.io.cwd, env: context.io.env });
  const stdio = config.servers.filter(
    (server): server is StdioServerDefinition => server.transport === "stdio",
  );
  const found = stdio.find((server) => server.name === name);
  if (!found) throw learnNotStdio({ server: name, known: stdio.map((server) => server.name) });
  return found;
}

/** Lists the server's tools, then makes each call in order; a failed call is reported, not fatal. */
async function exercise(transport: Parameters<Client["connect"]>[0], calls: readonly LearnCall[]) {
  const client = new Client({ name: "mcp-bridge-sandbox-learn", version: "1" });
  await client.connect(transport);
  try {
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    const outcomes: CallOutcome[] = [];
    for (const call of calls) {
      const ok = await client.callTool({ name: call.tool, arguments: call.args }).then(
        (result) => result.isError !== true,
        () => false,
      );
      outcomes.push({ tool: call.tool, ok });
    }
    return { tools, outcomes };
  } finally {
    await client.close();
  }
}

/** A path or name of the server's own making, on one line: escapes as in JSON, no control character. */
const shown = (text: string): string => clean(JSON.stringify(text).slice(1, -1));

async function runSandbox(context: CommandContext): Promise<number> {
  const server = context.positionals[1] as string;
  const given = context.options.call;
  const calls = (Array.isArray(given) ? given : given === undefined ? [] : [given]).map((value) =>
    parseLearnCall(String(value)),
  );
  const definition = await findServer(context, server);
  const result = await learnSandbox({
    definition,
    hostEnv: context.io.env,
    cwd: definition.cwd ?? context.io.cwd,
    exercise: (transport) => exercise(transport, calls),
  });
  const { outcomes } = result.exercised;
  if (context.global.json) {
    writeJson(context.io, {
      server,
      sandbox: result.sandbox,
      learned: result.learned,
      calls: outcomes,
      truncated: result.truncated,
    });
    return 0;
  }
  const out = context.io.stdout;
  const list = (label: string, items: readonly string[]) =>
    out.write(`  ${label} ${items.length === 0 ? "(none)" : items.map(shown).join("\n         ")}\n`);
  out.write(`Server "${clean(server)}" needed, beyond what its sandbox already shows:\n`);
  list("read: ", result.learned.read);
  list("write:", result.learned.write);
  list("hosts:", result.learned.hosts);
  for (const call of outcomes.filter((outcome) => !outcome.ok))
    context.logger.warn(
      `The call of "${clean(call.tool)}" failed; what it would have needed is not learned.`,
    );
  if (result.truncated) context.logger.warn("The trace was too long: only its first 64 MiB were read.");
  out.write(`\nThe server's "sandbox" (paste it into its entry):\n`);
  out.write(`"sandbox": ${clean(JSON.stringify(result.sandbox, null, 2))}\n`);
  return 0;
}

export const sandboxCommand = defineCommand({
  ...sandboxDeclaration,
  run: runSandbox,
});
