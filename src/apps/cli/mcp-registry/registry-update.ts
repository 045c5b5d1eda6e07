import { loadConfig } from "../../../config/load.js";
import { type ServerDefinition, type ServerOrigin, VALUES_FROM_ENV } from "../../../config/model.js";
import { serverNotInConfig } from "../../../errors/cli-errors.js";
import { registryNeedsConfirmation } from "../../../errors/registry-errors.js";
import type { CommandContext } from "../command-context.js";
import { writeJson } from "../output.js";
import { terminalText } from "../terminal.js";
import { canAsk, confirm } from "../terminal-ask.js";
import { addFromRegistry, type WriteServer } from "./registry-add.js";
import { listVersions, type RegistryPackage, type ServerResponse } from "./registry-api.js";

/**
 * `mcp-bridge update [NAME]`: for each server installed from a registry (one with an `origin`), the
 * newer version the registry lists as latest, what it changes in the arguments and variables the
 * user gives, and, once confirmed, the entry rewritten as `add` writes it, pinned anew.
 */

interface Update {
  readonly server: ServerDefinition & { origin: ServerOrigin };
  readonly latest: string;
  readonly changes: string[];
}

/** The names a package asks the user for: its variables and its arguments, by kind. */
function declared(pkg: RegistryPackage | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of pkg?.environmentVariables ?? [])
    out.set(`variable ${v.name}`, `${v.isRequired ? "required" : "optional"}${v.isSecret ? " secret" : ""}`);
  for (const a of [...(pkg?.runtimeArguments ?? []), ...(pkg?.packageArguments ?? [])]) {
    const key = a.type === "named" ? a.name : (a.valueHint ?? a.value ?? "argument");
    out.set(
      `argument ${key}`,
      `${a.isRequired ? "required" : "optional"}${a.value !== undefined ? ` = ${a.value}` : ""}`,
    );
  }
  return out;
}

function packageOf(entry: ServerResponse | undefined, origin: ServerOrigin): RegistryPackage | undefined {
  return entry?.server.packages?.find((p) => p.registryType === origin.package?.type);
}

/** What changes between two versions for the user: added, removed and changed inputs. */
export function inputChanges(
  before: RegistryPackage | undefined,
  after: RegistryPackage | undefined,
): string[] {
  const old = declared(before);
  const now = declared(after);
  const changes: string[] = [];
  for (const [key, what] of now)
    if (!old.has(key)) changes.push(`+ ${key} (${what})`);
    else if (old.get(key) !== what) changes.push(`~ ${key}: ${old.get(key)} -> ${what}`);
  for (const [key, what] of old) if (!now.has(key)) changes.push(`- ${key} (${what})`);
  if (before && after && before.identifier !== after.identifier)
    changes.push(`~ package ${before.identifier} -> ${after.identifier}`);
  return changes;
}

async function pending(server: ServerDefinition & { origin: ServerOrigin }): Promise<Update | undefined> {
  const versions = await listVersions(server.origin.registry, server.origin.name);
  const official = (v: ServerResponse) => v._meta?.["io.modelcontextprotocol.registry/official"];
  const latest = versions.find((v) => official(v)?.isLatest === true) ?? versions[0];
  if (!latest || latest.server.version === server.origin.version) return undefined;
  const current = versions.find((v) => v.server.version === server.origin.version);
  const changes = inputChanges(packageOf(current, server.origin), packageOf(latest, server.origin));
  return { server, latest: latest.server.version, changes };
}

/** The values the entry holds that were written as they are (never the ones read from `${VAR}`). */
function keptValues(server: ServerDefinition): string[] {
  if (server.transport !== "stdio") return [];
  const fromEnv = new Set((server[VALUES_FROM_ENV] ?? []).map((v) => v.value));
  return Object.entries(server.env)
    .filter(([, value]) => !fromEnv.has(value))
    .map(([key, value]) => `${key}=${value}`);
}

export async function runUpdate(context: CommandContext, write: WriteServer, file: string): Promise<number> {
  const [only] = context.positionals;
  const options = context.options as { yes?: boolean; "dry-run"?: boolean };
  const config = await loadConfig({ path: file, cwd: context.io.cwd, env: context.io.env });
  const installed = config.servers.filter(
    (s): s is ServerDefinition & { origin: ServerOrigin } =>
      s.origin !== undefined && (!only || s.name === only),
  );
  if (only && installed.length === 0)
    throw serverNotInConfig({ server: only, file, near: " installed from a registry." });
  const updates = (await Promise.all(installed.map(pending))).filter((u): u is Update => u !== undefined);
  if (context.global.json && options["dry-run"]) {
    writeJson(context.io, {
      updates: updates.map((u) => ({
        name: u.server.name,
        from: u.server.origin.version,
        to: u.latest,
        changes: u.changes,
      })),
    });
    return 0;
  }
  if (updates.length === 0) {
    context.io.stderr.write("Every server installed from a registry is at its latest version.\n");
    return 0;
  }
  for (const update of updates) {
    const { name, origin } = update.server;
    const lines = [
      `${name}: ${origin.name} ${origin.version} -> ${update.latest}`,
      ...update.changes.map((c) => `  ${c}`),
    ];
    context.io.stderr.write(`${lines.map((line) => terminalText(line)).join("\n")}\n`);
  }
  if (options["dry-run"]) return 0;
  if (!options.yes) {
    if (!canAsk(context.io))
      throw registryNeedsConfirmation({ name: updates.map((u) => u.server.name).join(", ") });
    if (!(await confirm(context.io, "Update them? [y/N] "))) return 1;
  }
  for (const { server, latest } of updates) {
    const addContext = {
      ...context,
      options: {
        registry: [server.origin.registry],
        remote: server.origin.package === undefined,
        var: keptValues(server),
        as: server.name,
        force: true,
        yes: true,
      },
    };
    await addFromRegistry(addContext, `${server.origin.name}@${latest}`, [], write, file);
  }
  return 0;
}
