import { auditFileProblem } from "../../../audit/audit-log.js";
import { configSearchPaths } from "../../../config/load.js";
import {
  IMPORT_SOURCES,
  type ImportSourceName,
  type ResolvedConfig,
  type ServerDefinition,
} from "../../../config/model.js";
import { redactConfig, redactServer } from "../../../config/redact-config.js";
import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
import { loadCliConfig } from "../config-choice.js";
import { configDeclaration } from "../declarations/config-commands.js";
import { table, writeJson } from "../output.js";
import { terminalText } from "../terminal.js";
import { commandUsage } from "../usage-errors.js";

const SOURCES: readonly ImportSourceName[] = IMPORT_SOURCES;

/** `mcp-bridge config show|paths|schema|validate|import`. */
async function runConfig(context: CommandContext): Promise<number> {
  const [sub] = context.positionals;
  switch (sub) {
    case "show":
      return show(context);
    case "paths":
      return paths(context);
    case "schema":
      // The zod schema and the other hosts' readers load only for the subcommands that use them.
      writeJson(context.io, (await import("../../../config/schema.js")).configJsonSchema());
      return 0;
    case "validate":
      return validate(context);
    case "import":
      return importFrom(context);
    default:
      throw commandUsage(`config show|paths|schema|validate|import --from ${SOURCES.join("|")}`);
  }
}

/** The config `status` would use (no consent asked: showing it starts nothing). */
async function load(context: CommandContext): Promise<ResolvedConfig> {
  return loadCliConfig(context, { consent: false });
}

async function show(context: CommandContext): Promise<number> {
  const config = redactConfig(await load(context));
  if (context.global.json) {
    writeJson(context.io, {
      file: config.file ?? null,
      format: config.format ?? null,
      settings: config.settings,
      servers: config.servers,
      warnings: config.warnings,
    });
    return 0;
  }
  const out = context.io.stdout;
  out.write(
    `${context.style.bold("Config:")} ${config.file ?? "(none found; see `mcp-bridge config paths`)"}\n`,
  );
  for (const server of config.servers) out.write(`\n${describe(server, context)}\n`);
  writeWarnings(context, config);
  return 0;
}

function describe(server: ServerDefinition, context: CommandContext): string {
  const lines = [
    `${context.style.bold(server.name)}${server.enabled ? "" : context.style.dim(" (disabled)")}`,
  ];
  if (server.transport === "stdio") {
    lines.push(`  transport: stdio`, `  command:   ${[server.command, ...server.args].join(" ")}`);
    if (server.cwd) lines.push(`  cwd:       ${server.cwd}`);
    const env = Object.entries(server.env);
    if (env.length) lines.push(`  env:       ${env.map(([k, v]) => `${k}=${v}`).join(" ")}`);
  } else if (server.transport === "in-process") {
    lines.push(`  transport: in-process (given in code)`);
  } else {
    lines.push(
      `  transport: ${server.transport}${server.fallbackToSse ? " (falls back to sse)" : ""}`,
      `  url:       ${server.url}`,
    );
    const headers = Object.entries(server.headers);
    if (headers.length) lines.push(`  headers:   ${headers.map(([k, v]) => `${k}: ${v}`).join(", ")}`);
  }
  lines.push(`  timeouts:  startup ${server.startupTimeoutMs} ms, call ${server.callTimeoutMs} ms`);
  if (server.tools.include.length || server.tools.exclude.length) {
    lines.push(
      `  tools:     include [${server.tools.include.join(", ")}] exclude [${server.tools.exclude.join(", ")}]`,
    );
  }
  if (server.source) lines.push(`  source:    ${server.source.file}`);
  return lines.join("\n");
}

function writeWarnings(context: CommandContext, config: Pick<ResolvedConfig, "warnings">): void {
  for (const warning of config.warnings)
    context.io.stderr.write(`${context.errStyle.yellow("warning:")} ${warning.message}\n`);
}

function paths(context: CommandContext): number {
  const candidates = configSearchPaths({
    path: context.global.config || undefined,
    cwd: context.io.cwd,
    env: context.io.env,
  });
  if (context.global.json) {
    writeJson(context.io, { paths: candidates, used: candidates.find((c) => c.used)?.path ?? null });
    return 0;
  }
  const rows = candidates.map((c) => [
    c.used ? context.style.green("used") : c.exists ? "exists" : context.style.dim("missing"),
    c.origin,
    c.path,
  ]);
  context.io.stdout.write(`${table(["STATE", "FROM", "PATH"], rows, context.style)}\n`);
  if (!candidates.some((c) => c.used))
    context.io.stdout.write(
      "No config found: `status`, `tools` and `call` use the bundled example servers.\n",
    );
  return 0;
}

/**
 * Exit 1 when the config loads no server or left any entry out; each left-out entry is listed. An entry
 * that runs mcp-bridge itself is the host's (a `.mcp.json` for Claude Code holds one) and no defect: it
 * is listed, and it counts as a server of the file.
 */
async function validate(context: CommandContext): Promise<number> {
  const config = redactConfig(await load(context));
  const { skipped } = config;
  const hostEntries = new Set(
    config.warnings.filter((warning) => warning.kind === "self-reference").map((warning) => warning.server),
  );
  const problems = skipped.filter((entry) => !hostEntries.has(entry.name));
  const empty = config.servers.length === 0 && hostEntries.size === 0;
  const audit = config.settings.audit;
  const auditProblem = audit && !audit.unusable ? auditFileProblem(audit.file) : undefined;
  const valid = problems.length === 0 && !empty && auditProblem === undefined;
  if (context.global.json) {
    writeJson(context.io, {
      file: config.file ?? null,
      valid,
      servers: config.servers.map((s) => s.name),
      skipped: skipped.map((entry) => ({
        name: entry.name,
        reason: entry.reason,
        field: entry.field ?? null,
        file: entry.file ?? null,
      })),
      warnings: config.warnings,
      audit: audit && !audit.unusable ? { file: audit.file, problem: auditProblem ?? null } : null,
    });
    return valid ? 0 : 1;
  }
  // A skipped server is listed below with its reason: its warning would say it a second time.
  const reasons = new Set(skipped.map((entry) => entry.reason));
  writeWarnings(context, { warnings: config.warnings.filter((warning) => !reasons.has(warning.message)) });
  if (auditProblem !== undefined)
    context.io.stderr.write(
      `${context.errStyle.yellow("warning:")} audit file ${terminalText(audit?.file ?? "")}: ${terminalText(auditProblem)}; every call would be denied\n`,
    );
  const out = context.io.stdout;
  for (const entry of skipped) {
    const label = hostEntries.has(entry.name)
      ? context.style.dim("for the host")
      : context.style.red("skipped");
    out.write(`${label} ${terminalText(entry.name)}: ${terminalText(entry.reason)}\n`);
  }
  out.write(
    `${config.file ?? "(no config file)"}: ${config.servers.length} server(s) valid${skipped.length ? `, ${skipped.length} skipped` : ""}${config.warnings.length ? `, ${config.warnings.length} warning(s)` : ""}\n`,
  );
  if (empty && skipped.length === 0)
    context.io.stderr.write(
      `${context.errStyle.red("error:")} no server is defined; write them under "mcpServers" (JSON) or [mcp.servers] (TOML)\n`,
    );
  return valid ? 0 : 1;
}

async function importFrom(context: CommandContext): Promise<number> {
  const from = context.options.from as string | undefined;
  if (!from || !SOURCES.includes(from as ImportSourceName))
    throw commandUsage(`config import --from ${SOURCES.join("|")}`);
  const home = context.io.env.HOME ?? "";
  const { importServers } = await import("../../../config/imports.js");
  const result = await importServers(from as ImportSourceName, {
    cwd: context.io.cwd,
    homeDir: home,
    env: context.io.env,
  });
  const servers = result.servers.map(redactServer);
  const { storeImportedLiterals } = await import("../secret-offer.js");
  const stored = await storeImportedLiterals(context, result.servers, context.options.keyring as boolean);
  if (context.global.json) {
    writeJson(context.io, { from, files: result.files, servers, warnings: result.warnings, stored });
    return 0;
  }
  if (result.files.length === 0) context.io.stdout.write(`No ${from} config found on this machine.\n`);
  for (const server of servers) context.io.stdout.write(`\n${describe(server, context)}\n`);
  for (const warning of result.warnings)
    context.io.stderr.write(`${context.errStyle.yellow("warning:")} ${warning.message}\n`);
  for (const { server, table, key, reference } of stored)
    context.io.stdout.write(
      `${terminalText(server)} ${table} ${terminalText(key)}: ${terminalText(reference)}\n`,
    );
  if (stored.length > 0)
    context.io.stdout.write(
      `Use these in your mcp-bridge config in place of the values (the ${from} file keeps them: ${from} does not read \${keyring:…}).\n`,
    );
  if (result.files.length) {
    context.io.stdout.write(
      `\nTo use these servers, add "imports": ["${from}"] to the "settings" of your mcp-bridge config.\n`,
    );
  }
  return 0;
}

export const configCommand = defineCommand({
  ...configDeclaration,
  run: runConfig,
});
