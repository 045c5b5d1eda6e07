import { loadConfig } from "../../../config/load.js";
import { resolveLocations } from "../../../config/locations.js";
import type { ProjectServerRequest } from "../../../config/model.js";
import { quarantineFile, ServerApprovals } from "../../../config/quarantine.js";
import { describeRequest } from "../../../config/trust.js";
import { heldServerUnknown } from "../../../errors/cli-errors.js";
import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
import { quarantineDeclaration } from "../declarations/config-commands.js";
import { writeJson } from "../output.js";
import { clean } from "../terminal-ask.js";
import { commandUsage } from "../usage-errors.js";

/**
 * `mcp-bridge quarantine [list|approve [SERVER...]]`: the servers another host's config file added
 * that wait for the user's approval (see config/quarantine.ts), and their approval. Listing loads the
 * config the way a run would, starting nothing, and collects what the loader held.
 */
async function heldServers(context: CommandContext): Promise<ProjectServerRequest[]> {
  const held: ProjectServerRequest[] = [];
  await loadConfig({
    path: context.global.config,
    cwd: context.io.cwd,
    env: context.io.env,
    onHeld: (request) => held.push(request),
  });
  return held;
}

async function runQuarantine(context: CommandContext): Promise<number> {
  const [sub = "list", ...names] = context.positionals;
  const store = new ServerApprovals(
    quarantineFile(resolveLocations({ env: context.io.env, cwd: context.io.cwd })),
  );
  const held = await heldServers(context);
  switch (sub) {
    case "list":
      if (names.length > 0) throw commandUsage("quarantine [list|approve] [SERVER...]");
      report(context, "held", held, store.file);
      return 0;
    case "approve": {
      const chosen = names.length === 0 ? held : names.map((name) => pick(held, name));
      store.approve(chosen);
      report(context, "approved", chosen, store.file);
      return 0;
    }
    default:
      throw commandUsage("quarantine [list|approve] [SERVER...]");
  }
}

function pick(held: readonly ProjectServerRequest[], name: string): ProjectServerRequest {
  const found = held.find((request) => request.name === name);
  if (!found) throw heldServerUnknown({ server: name, held: held.map((request) => request.name) });
  return found;
}

function report(
  context: CommandContext,
  verb: "held" | "approved",
  requests: readonly ProjectServerRequest[],
  file: string,
): void {
  if (context.global.json) {
    const rows = requests.map((request) => ({
      file: request.file,
      server: request.name,
      definition: describeRequest(request, (text) => text),
    }));
    writeJson(context.io, { [verb]: rows, store: file });
    return;
  }
  if (requests.length === 0) {
    context.io.stdout.write("No server is held: none waits for approval.\n");
    return;
  }
  const listing = requests.map((request) => describeRequest(request, clean)).join("\n");
  if (verb === "approved") {
    context.io.stdout.write(`Approved (they start on the next run or reload):\n${listing}\n`);
  } else {
    context.io.stdout.write(
      `Held until you approve them (\`mcp-bridge quarantine approve [SERVER...]\`):\n${listing}\n`,
    );
  }
}

export const quarantineCommand = defineCommand({
  ...quarantineDeclaration,
  run: runQuarantine,
});
