import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
import {
  advisoriesDeclaration,
  searchDeclaration,
  updateDeclaration,
} from "../declarations/config-commands.js";
import { runAdvisoriesRefresh } from "../mcp-registry/advisories-refresh.js";
import { registriesOf, targetSettings } from "../mcp-registry/registry-add.js";
import { type FoundEntry, searchRegistries } from "../mcp-registry/registry-api.js";
import { runUpdate } from "../mcp-registry/registry-update.js";
import { writeJson } from "../output.js";
import { terminalText } from "../terminal.js";
import { addTarget, writeServer } from "./add-remove-command.js";

/** `mcp-bridge search QUERY`: the registry's servers whose name holds QUERY, latest versions. */

function howItRuns(found: FoundEntry): string {
  const server = found.entry.server;
  const kinds = [
    ...(server.packages ?? []).map((p) => p.registryType),
    ...((server.remotes?.length ?? 0) > 0 ? ["remote"] : []),
  ];
  return [...new Set(kinds)].join(", ") || "nothing to run";
}

async function runSearch(context: CommandContext): Promise<number> {
  const [query] = context.positionals as [string];
  const options = context.options as { registry?: string[]; limit?: number };
  const settings = await targetSettings(context, addTarget(context).file);
  const found = await searchRegistries(registriesOf(options, settings), query, options.limit ?? 20);
  if (context.global.json) {
    writeJson(context.io, {
      servers: found.map(({ registry, entry }) => ({
        name: entry.server.name,
        version: entry.server.version,
        description: entry.server.description,
        runs: howItRuns({ registry, entry }),
        registry,
      })),
    });
    return 0;
  }
  if (found.length === 0) {
    context.io.stderr.write(`No server in the registry matches "${terminalText(query)}".\n`);
    return 0;
  }
  for (const item of found) {
    const server = item.entry.server;
    context.io.stdout.write(
      `${terminalText(`${server.name}@${server.version}`)}  (${terminalText(howItRuns(item))})\n    ${terminalText(server.description ?? "")}\n`,
    );
  }
  context.io.stderr.write(`Add one with: mcp-bridge add NAME (shows what it writes before writing)\n`);
  return 0;
}

export const searchCommand = defineCommand({ ...searchDeclaration, run: runSearch });

export const updateCommand = defineCommand({
  ...updateDeclaration,
  run: (context) => runUpdate(context, writeServer, addTarget(context).file),
});

export const advisoriesCommand = defineCommand({
  ...advisoriesDeclaration,
  run: (context) => runAdvisoriesRefresh(context, addTarget(context).file),
});
