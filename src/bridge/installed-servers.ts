import { type Advisory, loadAdvisories, malwareAdvisory } from "../config/advisories.js";
import type { ConfigWarning, ResolvedConfig, ServerDefinition, SkippedServer } from "../config/model.js";
import { packageMalicious, registryNotAllowed } from "../errors/registry-errors.js";
import { type AllowedRegistry, loadManagedRegistries } from "../policy/managed-policy.js";
import { globTest } from "../policy/policy-match.js";
import { satisfies } from "../util/semver.js";

/**
 * The checks on where servers come from, made on every config the bridge loads (start and reload, in
 * every face: library, CLI, chat, serve, attach, the daemon): a server whose package has a malware
 * advisory (the `advisories` setting) is refused, and so is, when the managed policy lists
 * `registries`, any server that was not installed from one of them within its name glob and version
 * range. A refused server is skipped like an invalid entry (state `invalid`), with the reason as its
 * warning; the rest of the config is served.
 */

const RUNNERS: Record<string, readonly string[]> = {
  npm: ["npx"],
  pypi: ["uvx"],
  nuget: ["dnx"],
  oci: ["docker", "podman"],
};

const baseName = (path: string) => path.split(/[/\\]/).pop() ?? path;

/** Whether the command line runs the package the origin names (else the origin says nothing of it). */
function runsItsOrigin(server: ServerDefinition): boolean {
  const pkg = server.origin?.package;
  if (!pkg) return server.transport === "http" || server.transport === "sse";
  if (server.transport !== "stdio") return false;
  const runner = baseName(server.command).replace(/\.(cmd|exe)$/i, "");
  if (!RUNNERS[pkg.type]?.includes(runner)) return false;
  const wanted = pkg.type === "oci" ? pkg.identifier : `${pkg.identifier}@${pkg.version}`;
  return server.args.includes(pkg.digest ? `${wanted}@${pkg.digest}` : wanted);
}

function allowedBy(server: ServerDefinition, allowed: readonly AllowedRegistry[]): boolean {
  const origin = server.origin;
  if (!origin || !runsItsOrigin(server)) return false;
  const registry = origin.registry.replace(/\/+$/, "");
  return allowed.some(
    (entry) =>
      entry.url === registry &&
      (entry.servers === undefined || globTest(entry.servers, false)(origin.name)) &&
      (entry.versions === undefined || satisfies(origin.version, entry.versions)),
  );
}

function describeOrigin(server: ServerDefinition): string {
  const origin = server.origin;
  if (!origin) return "was not installed from a registry";
  if (!runsItsOrigin(server))
    return `does not run the package its origin names (${origin.name}@${origin.version})`;
  return `comes from ${origin.registry} as ${origin.name}@${origin.version}`;
}

function describeAllowed(allowed: readonly AllowedRegistry[]): string {
  return allowed
    .map((a) => `${a.url}${a.servers ? ` (${a.servers})` : ""}${a.versions ? ` at ${a.versions}` : ""}`)
    .join(" or ");
}

/** Why the server is refused, or undefined when it may be served. */
function refusal(
  server: ServerDefinition,
  advisories: readonly Advisory[],
  registries: ReturnType<typeof loadManagedRegistries>,
): Error | undefined {
  const pkg = server.origin?.package;
  const advisory = pkg ? malwareAdvisory(advisories, pkg) : undefined;
  if (pkg && advisory)
    return packageMalicious({
      server: server.name,
      pkg: `${pkg.identifier}@${pkg.version}`,
      advisory: advisory.id,
      summary: advisory.summary,
    });
  // A server given in code is the host program's own, not something installed.
  if (registries === undefined || server.transport === "in-process") return undefined;
  if ("unusable" in registries)
    return registryNotAllowed({
      server: server.name,
      origin: describeOrigin(server),
      allowed: `a registry, but ${registries.unusable}`,
    });
  if (allowedBy(server, registries.allowed)) return undefined;
  return registryNotAllowed({
    server: server.name,
    origin: describeOrigin(server),
    allowed: describeAllowed(registries.allowed),
  });
}

/** The config with the refused servers moved to `skipped`, each with a warning saying why. */
export function screenInstalledServers(
  config: ResolvedConfig,
  env: Readonly<Record<string, string | undefined>>,
): ResolvedConfig {
  const registries = loadManagedRegistries(env);
  let advisories: readonly Advisory[] = [];
  let unreadable: Error | undefined;
  if (config.settings.advisories !== undefined) {
    try {
      advisories = loadAdvisories(config.settings.advisories);
    } catch (error) {
      unreadable = error as Error;
    }
  }
  if (registries === undefined && advisories.length === 0 && unreadable === undefined) return config;
  const servers: ServerDefinition[] = [];
  const skipped: SkippedServer[] = [...config.skipped];
  const warnings: ConfigWarning[] = [...config.warnings];
  for (const server of config.servers) {
    // Advisories that cannot be read refuse what they would have checked: a broken file must not pass malware.
    const problem =
      unreadable && server.origin?.package ? unreadable : refusal(server, advisories, registries);
    if (problem === undefined) {
      servers.push(server);
      continue;
    }
    const file = server.source?.file;
    skipped.push({
      name: server.name,
      transport: server.transport === "in-process" ? "stdio" : server.transport,
      kind: "refused",
      reason: problem.message,
      ...(file ? { file } : {}),
    });
    warnings.push({
      kind: "refused",
      message: problem.message,
      server: server.name,
      ...(file ? { file } : {}),
    });
  }
  return { ...config, servers, skipped, warnings };
}
