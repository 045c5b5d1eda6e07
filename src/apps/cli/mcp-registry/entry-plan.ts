import { bridgeSelfCommand } from "../../../config/self-entry.js";
import type { ServerSpec } from "../../../config/server-entry.js";
import { registryEntryUnsafe, registryNoPackageFor } from "../../../errors/registry-errors.js";
import { type Answer, filledValue, type Input, inputsOf, variableName } from "./entry-inputs.js";
import type {
  FoundEntry,
  KeyValueInput,
  RegistryArgument,
  RegistryPackage,
  ServerDetail,
} from "./registry-api.js";

/**
 * From a registry entry to the config entry `add` writes: which of its packages this machine can run
 * (a runner on PATH: npx, uvx, docker/podman, dnx; or its remote endpoint with --remote), the exact
 * command line with the entry's arguments, and where it came from (`origin`, pinned to exact versions).
 * The entry is hostile input: every name, identifier, version and value that reaches a command line is
 * checked first, so nothing it declares can become an option of the runner, a path, or a shell word.
 */

/** Where an installed server came from: written as its `origin` and checked before each start. */
export interface Origin {
  readonly registry: string;
  readonly name: string;
  readonly version: string;
  readonly package?: {
    readonly type: string;
    readonly identifier: string;
    readonly version: string;
    readonly registryBaseUrl?: string;
    /** npm: the tarball's `dist.integrity` (sha512) and address, recorded at add. */
    integrity?: string;
    tarball?: string;
    /** OCI: the image's manifest digest, which the command line runs (`image:tag@sha256:…`). */
    digest?: string;
  };
}

export interface Plan {
  readonly spec: ServerSpec;
  readonly origin: Origin;
  /** Every value the entry leaves to the user, for the listing before the confirmation. */
  readonly inputs: readonly Input[];
  /** Variables the user must set in the environment (secrets, written as `${VAR}`). */
  readonly toSet: readonly Input[];
  readonly runner: string;
}

export const RUNNERS: Record<string, readonly string[]> = {
  npm: ["npx"],
  pypi: ["uvx"],
  oci: ["docker", "podman"],
  nuget: ["dnx"],
};

const NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
const IDENTIFIER: Record<string, RegExp> = {
  npm: /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/i,
  pypi: /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
  nuget: /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
  oci: /^[a-z0-9][a-z0-9._/:-]*(@sha256:[a-f0-9]{64})?$/,
};
/** An exact version: no range, no tag such as `latest`, never an option. */
const EXACT_VERSION = /^v?\d+(\.\d+){0,3}([-+][0-9A-Za-z.+-]*)?$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FLAG = /^--?[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** Docker options an entry may declare: environment and mounts (each shown before it is written). */
const DOCKER_RUNTIME_FLAGS = new Set(["-e", "--env", "--mount", "-v", "--volume", "-w", "--workdir"]);
/** Control characters (C0 but tab, DEL, C1) and the bidirectional overrides that hide text in a terminal. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters refused
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

export function checkedName(name: string): string {
  if (name.length > 200 || !NAME.test(name))
    throw registryEntryUnsafe({
      name: JSON.stringify(name.slice(0, 80)),
      problem: "not a registry name (namespace/name)",
    });
  return name;
}

function refuse(entry: ServerDetail, problem: string): never {
  throw registryEntryUnsafe({ name: `${entry.name}@${entry.version}`, problem });
}

function clean(entry: ServerDetail, what: string, value: string): string {
  if (CONTROL.test(value) || value.length > 4096)
    refuse(entry, `${what} holds control characters or is too long`);
  return value;
}

/** The package's own pinned version: the package's, else the entry's; exact or refused. */
function exactVersion(entry: ServerDetail, pkg: RegistryPackage): string {
  const version = pkg.version ?? entry.version;
  if (!EXACT_VERSION.test(version))
    refuse(entry, `version ${JSON.stringify(version)} is not one exact version`);
  return version;
}

function checkedBaseUrl(entry: ServerDetail, url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  if (!URL.canParse(url) || !/^https?:\/\//.test(url) || /\s/.test(url))
    refuse(entry, `registryBaseUrl ${JSON.stringify(url)} is not an http(s) address`);
  return url.replace(/\/+$/, "");
}

/** The words of an argument list; a value that would read as an option where a value is expected is refused. */
function argumentWords(
  entry: ServerDetail,
  args: readonly RegistryArgument[] | undefined,
  answer: Answer,
  allowedFlags?: ReadonlySet<string>,
): string[] {
  const words: string[] = [];
  for (const arg of args ?? []) {
    const key = arg.type === "named" ? arg.name.replace(/^-+/, "") : (arg.valueHint ?? "argument");
    if (arg.type === "named") {
      if (!FLAG.test(arg.name)) refuse(entry, `argument name ${JSON.stringify(arg.name)} is not a flag`);
      if (allowedFlags && !allowedFlags.has(arg.name))
        refuse(entry, `runtime option ${arg.name} is not one a runner is given from a registry`);
    }
    const value = filledValue(key, arg, answer);
    if (value === undefined) continue;
    clean(entry, `argument ${key}`, value);
    if (arg.type === "named") words.push(arg.name);
    // A value after a flag could be read as another option by the runner.
    else if (value.startsWith("-") && allowedFlags)
      refuse(entry, `runtime argument ${JSON.stringify(value)} starts with -`);
    words.push(value);
  }
  return words;
}

function envOf(
  entry: ServerDetail,
  vars: readonly KeyValueInput[] | undefined,
  answer: Answer,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const variable of vars ?? []) {
    if (!ENV_NAME.test(variable.name))
      refuse(entry, `variable name ${JSON.stringify(variable.name)} is not a name`);
    const value = filledValue(variable.name, variable, answer);
    if (value !== undefined) env[variable.name] = clean(entry, `variable ${variable.name}`, value);
  }
  return env;
}

function inputsOfPackage(pkg: RegistryPackage): Input[] {
  const args = [...(pkg.runtimeArguments ?? []), ...(pkg.packageArguments ?? [])];
  return [
    ...args.flatMap((a) =>
      inputsOf(a.type === "named" ? a.name.replace(/^-+/, "") : (a.valueHint ?? "argument"), a),
    ),
    ...(pkg.environmentVariables ?? []).flatMap((v) => inputsOf(v.name, v)),
  ];
}

/** The runner of `pkg` found on this machine, if any. */
function runnerFor(pkg: RegistryPackage, installed: (program: string) => boolean): string | undefined {
  return (RUNNERS[pkg.registryType] ?? []).find(installed);
}

function commandOf(entry: ServerDetail, pkg: RegistryPackage, runner: string, answer: Answer) {
  const version = exactVersion(entry, pkg);
  const identifier = pkg.identifier;
  if (!IDENTIFIER[pkg.registryType]?.test(identifier))
    refuse(entry, `package identifier ${JSON.stringify(identifier)} is not a ${pkg.registryType} name`);
  if (/^mcp-bridge$/i.test(identifier)) refuse(entry, "it would run mcp-bridge inside itself");
  const registryBaseUrl = checkedBaseUrl(entry, pkg.registryBaseUrl);
  const env = envOf(entry, pkg.environmentVariables, answer);
  const packageArgs = argumentWords(entry, pkg.packageArguments, answer);
  if (pkg.registryType !== "oci" && (pkg.runtimeArguments?.length ?? 0) > 0)
    refuse(
      entry,
      `runtime arguments for ${runner} are not accepted from a registry (they would be ${runner}'s own options)`,
    );
  let args: string[];
  if (pkg.registryType === "npm") {
    const custom =
      registryBaseUrl && registryBaseUrl !== "https://registry.npmjs.org"
        ? [`--registry=${registryBaseUrl}`]
        : [];
    args = ["-y", ...custom, `${identifier}@${version}`, ...packageArgs];
  } else if (pkg.registryType === "pypi") args = [`${identifier}@${version}`, ...packageArgs];
  else if (pkg.registryType === "nuget") args = [`${identifier}@${version}`, "--yes", "--", ...packageArgs];
  else {
    const runtime = argumentWords(entry, pkg.runtimeArguments, answer, DOCKER_RUNTIME_FLAGS);
    const passEnv = Object.keys(env).flatMap((name) => ["-e", name]);
    args = ["run", "-i", "--rm", ...runtime, ...passEnv, identifier, ...packageArgs];
  }
  const spec: ServerSpec = { transport: "stdio", command: runner, args, env, cwd: undefined };
  return { spec, version, identifier, registryBaseUrl };
}

export interface PlanOptions {
  readonly remote: boolean;
  readonly installed: (program: string) => boolean;
  readonly answer: Answer;
}

/** The config entry for `found`, or a refusal saying why it cannot be installed here. */
export function planEntry(found: FoundEntry, options: PlanOptions): Plan {
  const entry = found.entry.server;
  checkedName(entry.name);
  clean(entry, "version", entry.version);
  const base = { registry: found.registry, name: entry.name, version: entry.version };
  if (options.remote) return planRemote(entry, base, options.answer);
  const packages = entry.packages ?? [];
  for (const pkg of packages) {
    const runner = runnerFor(pkg, options.installed);
    if (runner === undefined) continue;
    const { spec, version, identifier, registryBaseUrl } = commandOf(entry, pkg, runner, options.answer);
    if (
      bridgeSelfCommand({
        command: spec.transport === "stdio" ? spec.command : "",
        args: spec.transport === "stdio" ? spec.args : [],
      })
    )
      refuse(entry, "it would run mcp-bridge inside itself");
    const inputs = inputsOfPackage(pkg);
    const origin: Origin = {
      ...base,
      package: {
        identifier,
        type: pkg.registryType,
        version,
        ...(registryBaseUrl ? { registryBaseUrl } : {}),
      },
    };
    return { spec, origin, inputs, toSet: inputs.filter((i) => i.secret), runner };
  }
  const offered = [
    ...packages.map((p) => `${p.registryType} (${(RUNNERS[p.registryType] ?? ["no runner"]).join("/")})`),
    ...(entry.remotes?.length ? ["a remote endpoint"] : []),
  ];
  throw registryNoPackageFor({
    name: entry.name,
    offered: offered.join(", "),
    hint: entry.remotes?.length
      ? "Add it with --remote to use its remote endpoint."
      : "Install one of those runners.",
  });
}

function planRemote(entry: ServerDetail, base: Omit<Origin, "package">, answer: Answer): Plan {
  const remote = (entry.remotes ?? []).find((r) => r.type === "streamable-http" || r.type === "sse");
  if (!remote?.url)
    throw registryNoPackageFor({
      name: entry.name,
      offered: "no remote endpoint",
      hint: "Add it without --remote.",
    });
  const headers: Record<string, string> = {};
  for (const header of remote.headers ?? []) {
    if (!HEADER_NAME.test(header.name))
      refuse(entry, `header name ${JSON.stringify(header.name)} is not a header`);
    const value = filledValue(header.name, header, answer);
    if (value !== undefined) headers[header.name] = clean(entry, `header ${header.name}`, value);
  }
  const url = clean(entry, "url", remote.url);
  if (!URL.canParse(url) || !/^https?:\/\//.test(url) || /[{}\s]/.test(url))
    refuse(entry, `remote url ${JSON.stringify(url)} is not an http(s) address`);
  const inputs = (remote.headers ?? []).flatMap((h) => inputsOf(h.name, h));
  const transport = remote.type === "sse" ? "sse" : "http";
  return {
    spec: { transport, url, headers },
    origin: base,
    inputs,
    toSet: inputs.filter((i) => i.secret),
    runner: transport,
  };
}

/** The `${VAR}` written for a secret input: its own name when it is a variable name, else derived. */
export function secretReference(input: Input): string {
  return `\${${ENV_NAME.test(input.key) ? input.key : variableName(input.key)}}`;
}
