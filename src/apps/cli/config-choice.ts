import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { InputRequest, ResolveInput } from "../../config/inputs.js";
import {
  configSearchPaths,
  hostConfigsFound,
  type LoadConfigOptions,
  loadConfig,
} from "../../config/load.js";
import type { AdmitProjectServer, ResolvedConfig } from "../../config/model.js";
import { adHocServers } from "./ad-hoc.js";
import type { CommandContext } from "./command-context.js";
import { projectConsent } from "./commands/trust-command.js";
import { surprisingConfig } from "./config-notice.js";
import { terminalText } from "./terminal.js";

/**
 * Which config a command uses, decided once per run: --config, the ad-hoc --stdio/--http servers, the
 * search order, or the bundled example; and consent for project-level servers.
 */

/** The example config shipped with the package (examples/mcp.json beside dist/). */
export function bundledExampleConfig(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), "../../../../examples/mcp.json");
}

/**
 * The config to use: --config, else the search order (naming on stderr a file the user would not
 * expect, see `surprisingConfig`, or any with --verbose),
 * else the bundled example, unless another host's config exists: then no servers, and the files found.
 */
export function chooseConfig(context: CommandContext): string | undefined {
  if (context.global.config) return context.global.config;
  const where = { cwd: context.io.cwd, env: context.io.env };
  const candidates = configSearchPaths(where);
  const used = candidates.find((candidate) => candidate.used);
  const say = (text: string) => {
    if (!context.global.quiet) context.io.stderr.write(`${text}\n`);
  };
  if (used) {
    if (context.global.verbose || surprisingConfig(used, context.io))
      say(`Using config ${terminalText(used.path)}`);
    return undefined;
  }
  // The user config is where a setting for every folder belongs (./mcp.json is this project's only).
  const userConfig = terminalText(
    candidates.find((c) => c.origin === "user")?.path ?? "~/.config/mcp-bridge/mcp.json",
  );
  const hosts = hostConfigsFound(where);
  if (hosts.length > 0) {
    const list = hosts.map((host) => `${terminalText(host.file)} (${host.source})`).join(", ");
    const sources = [...new Set(hosts.map((host) => `"${host.source}"`))].join(", ");
    say(
      `No mcp-bridge config found, so no servers are started (the bundled examples are not used when other hosts' configs exist). Found: ${list}. Use one with --config FILE, or put { "settings": { "imports": [${sources}] } } in your user config, ${userConfig}.`,
    );
    return undefined;
  }
  say(bundledExampleNotice(userConfig));
  return bundledExampleConfig();
}

/** Said when no config is found anywhere and the bundled example servers are used instead. */
export function bundledExampleNotice(userConfig: string): string {
  return `No config found; using the bundled example servers. Put your servers in your user config, ${userConfig} (\`mcp-bridge add NAME -- COMMAND ...\` writes it), or in ./mcp.json for this folder only (see \`mcp-bridge config paths\`).`;
}

/**
 * The bundled example config when nothing else is configured (no mcp-bridge config, no other host's),
 * as the bridge commands choose it (see chooseConfig), with the notice to say; else undefined.
 */
export function exampleConfigWhenNoneFound(where: {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}): { readonly path: string; readonly notice: string } | undefined {
  const candidates = configSearchPaths(where);
  if (candidates.some((candidate) => candidate.used) || hostConfigsFound(where).length > 0) return undefined;
  const user = candidates.find((c) => c.origin === "user")?.path ?? "~/.config/mcp-bridge/mcp.json";
  return { path: bundledExampleConfig(), notice: bundledExampleNotice(terminalText(user)) };
}

/** Where the CLI's config comes from, and which project-level servers may start. */
export interface CliConfigSource {
  /** The file (--config, or the bundled example); undefined: the loader's search order. */
  readonly path?: string;
  /** `--stdio`/`--http` servers without --config: the only servers (no file is read). */
  readonly servers?: Record<string, Record<string, unknown>>;
  /** `--stdio`/`--http` servers besides --config's. */
  readonly extraServers?: Record<string, Record<string, unknown>>;
  readonly admitProjectServer?: AdmitProjectServer;
}

/**
 * The one way the CLI picks its config: --config, else the search order, else the bundled example
 * (see `chooseConfig`), with consent for project-level servers when `consent` is set (anything that
 * starts or contacts a server needs it; showing the config does not).
 */
export async function cliConfigSource(
  context: CommandContext,
  { consent }: { consent: boolean },
): Promise<CliConfigSource> {
  // Ad-hoc servers are repeatable flags (arrays); `serve` has its own --stdio and --http (a switch
  // and an address), which are not servers.
  const list = (value: unknown) => (Array.isArray(value) ? (value as string[]) : undefined);
  // `--http-url` is mcporter's spelling of --http: both lists, in that order.
  const httpUrls = [...(list(context.options.http) ?? []), ...(list(context.options["http-url"]) ?? [])];
  const adHoc = adHocServers({
    stdio: list(context.options.stdio),
    http: httpUrls.length > 0 ? httpUrls : undefined,
    name: list(context.options.name),
  });
  if (adHoc && !context.global.config) return { servers: adHoc };
  const path = chooseConfig(context);
  const admitProjectServer = consent ? await projectConsent(context, path) : undefined;
  return { path, admitProjectServer, extraServers: adHoc };
}

/** The options for `loadConfig` that match a source. */
export function loadOptionsFor(context: CommandContext, source: CliConfigSource): LoadConfigOptions {
  return {
    path: source.path,
    servers: source.servers,
    extraServers: source.extraServers,
    cwd: context.io.cwd,
    env: context.io.env,
    admitProjectServer: source.admitProjectServer,
  };
}

/**
 * Answers every VS Code `${input:id}` with the reference itself, for a load that starts nothing and
 * only reads names and shows definitions (`list`, finding the server that owns a tool): such an entry
 * is listed as written instead of being left out, and nobody is asked (nor warned that they could be)
 * for a value the run does not use. The load that starts servers asks or uses the remembered answer.
 */
export const inputsAsWritten = (request: InputRequest): string => `\${input:${request.id}}`;

/** Loads the config the way every command sees it (`cliConfigSource`). */
export async function loadCliConfig(
  context: CommandContext,
  { consent, resolveInput }: { consent: boolean; resolveInput?: ResolveInput },
): Promise<ResolvedConfig & { readonly source: CliConfigSource }> {
  const source = await cliConfigSource(context, { consent });
  return { ...(await loadConfig({ ...loadOptionsFor(context, source), resolveInput })), source };
}
