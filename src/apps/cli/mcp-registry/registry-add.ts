import { accessSync, constants, existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { loadAdvisories, malwareAdvisory } from "../../../config/advisories.js";
import { loadConfig } from "../../../config/load.js";
import type { BridgeSettings } from "../../../config/model.js";
import type { ServerSpec } from "../../../config/server-entry.js";
import {
  packageMalicious,
  registryEntryUnsafe,
  registryNeedsConfirmation,
  registryValueMissing,
} from "../../../errors/registry-errors.js";
import type { CommandContext } from "../command-context.js";
import { writeJson } from "../output.js";
import { terminalText } from "../terminal.js";
import { ask, canAsk, confirm } from "../terminal-ask.js";
import type { Input } from "./entry-inputs.js";
import { checkedName, type Origin, type Plan, planEntry, secretReference } from "./entry-plan.js";
import { npmDist } from "./npm-packument.js";
import { imageDigest } from "./oci-digest.js";
import { fetchEntry, OFFICIAL_REGISTRY } from "./registry-api.js";
import { type PendingSecret, secretMask, secretsToStore, storeSecrets } from "./registry-secrets.js";

/**
 * `mcp-bridge add io.github.owner/server[@version]`: the registry's entry becomes a normal config
 * entry, pinned to exact versions, with the npm tarball's integrity recorded (checked before every
 * start), after the user saw what will be written and agreed (or gave --yes).
 */

export interface RegistryAddOptions {
  readonly registry?: readonly string[];
  readonly remote?: boolean;
  readonly var?: readonly string[];
  readonly env?: readonly string[];
  readonly yes?: boolean;
  readonly "dry-run"?: boolean;
  readonly as?: string;
  readonly force?: boolean;
  readonly keyring?: boolean;
}

export type WriteServer = (
  context: CommandContext,
  name: string,
  spec: ServerSpec,
  options: { force?: boolean; extra?: Record<string, unknown> },
) => Promise<{ file: string; exists: boolean; entry: Record<string, unknown> }>;

/** `name@version` split; a scope's `@` never starts a registry name, so the last `@` is the version's. */
export function registryNameOf(text: string): { name: string; version: string | undefined } {
  const at = text.lastIndexOf("@");
  const slash = text.indexOf("/");
  if (at > slash && slash >= 0)
    return { name: checkedName(text.slice(0, at)), version: text.slice(at + 1) || undefined };
  return { name: checkedName(text), version: undefined };
}

/** The settings of the config `add` writes to, for `registry` and `advisories`; none when it does not load. */
export async function targetSettings(
  context: CommandContext,
  file: string,
): Promise<Partial<BridgeSettings>> {
  if (!existsSync(file)) return {};
  try {
    return (await loadConfig({ path: file, cwd: context.io.cwd, env: context.io.env })).settings;
  } catch {
    return {};
  }
}

export function registriesOf(
  options: { registry?: readonly string[] },
  settings: Partial<BridgeSettings>,
): string[] {
  return [...(options.registry?.length ? options.registry : (settings.registries ?? [OFFICIAL_REGISTRY]))];
}

/** Whether `program` is an executable file in a folder of PATH. */
export function onPath(env: Readonly<Record<string, string | undefined>>): (program: string) => boolean {
  const dirs = (env.PATH ?? "").split(delimiter).filter(Boolean);
  const suffixes = process.platform === "win32" ? [".exe", ".cmd", ""] : [""];
  return (program) =>
    dirs.some((dir) =>
      suffixes.some((suffix) => {
        try {
          accessSync(join(dir, program + suffix), constants.X_OK);
          return true;
        } catch {
          return false;
        }
      }),
    );
}

function givenValues(options: RegistryAddOptions): Map<string, string> {
  const given = new Map<string, string>();
  for (const pair of [...(options.var ?? []), ...(options.env ?? [])]) {
    const at = pair.indexOf("=");
    if (at > 0) given.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return given;
}

/** Asks on the terminal for the required, non-secret values not given with --var and without a default. */
async function askMissing(context: CommandContext, inputs: readonly Input[], given: Map<string, string>) {
  if (!canAsk(context.io)) return;
  for (const input of inputs) {
    if (!input.required || input.secret || given.has(input.key)) continue;
    const about = input.description ? ` (${terminalText(input.description)})` : "";
    const choices = input.choices?.length ? ` [${input.choices.map(terminalText).join("/")}]` : "";
    const fallback = input.default !== undefined ? ` [default ${terminalText(input.default)}]` : "";
    const answer = await ask(context.io, `${terminalText(input.key)}${about}${choices}${fallback}: `);
    if (answer) given.set(input.key, answer);
  }
}

function answerFrom(given: Map<string, string>, name: string, strict: boolean) {
  return (input: Input): string | undefined => {
    const value = given.get(input.key);
    if (value !== undefined) {
      if (input.choices?.length && !input.choices.includes(value))
        throw registryEntryUnsafe({
          name,
          problem: `${input.key} must be one of ${input.choices.join(", ")}`,
        });
      return value;
    }
    if (input.secret) return input.required || strict ? secretReference(input) : undefined;
    if (input.default !== undefined && input.required) return input.default;
    if (input.required) {
      if (strict) throw registryValueMissing({ name, variable: input.key });
      return "";
    }
    return undefined;
  };
}

/** Refuses, before anything is fetched or written, a package a malware advisory names. */
function refuseMalware(settings: Partial<BridgeSettings>, origin: Origin, name: string): void {
  const pkg = origin.package;
  if (!pkg || settings.advisories === undefined) return;
  const advisory = malwareAdvisory(loadAdvisories(settings.advisories), pkg);
  if (advisory)
    throw packageMalicious({
      server: name,
      pkg: `${pkg.identifier}@${pkg.version}`,
      advisory: advisory.id,
      summary: advisory.summary,
    });
}

/** The npm package's integrity and tarball, recorded in the origin. */
async function pinned(plan: Plan): Promise<Origin> {
  const pkg = plan.origin.package;
  if (pkg?.type === "oci" && !pkg.identifier.includes("@sha256:") && plan.spec.transport === "stdio") {
    // The image by digest: the tag is kept for the reader, the digest decides what runs.
    const digest = await imageDigest(pkg.identifier);
    const at = plan.spec.args.indexOf(pkg.identifier);
    (plan.spec.args as string[])[at] = `${pkg.identifier}@${digest}`;
    return { ...plan.origin, package: { ...pkg, digest } };
  }
  if (pkg?.type !== "npm") return plan.origin;
  const dist = await npmDist(pkg.registryBaseUrl, pkg.identifier, pkg.version);
  return { ...plan.origin, package: { ...pkg, integrity: dist.integrity, tarball: dist.tarball } };
}

function describe(plan: Plan, origin: Origin, name: string, stored: readonly PendingSecret[]): string {
  const lines = [`Server "${name}" from ${origin.registry}: ${origin.name}@${origin.version}`];
  const spec = plan.spec;
  if (spec.transport === "stdio") lines.push(`  runs: ${[spec.command, ...spec.args].join(" ")}`);
  else lines.push(`  ${spec.transport}: ${spec.url}`);
  if (origin.package?.integrity)
    lines.push(
      `  pinned: ${origin.package.identifier}@${origin.package.version} ${origin.package.integrity}`,
    );
  for (const input of plan.inputs) {
    const kind = input.secret ? "secret" : input.required ? "required" : "optional";
    const about = input.description ? `: ${input.description}` : "";
    const fallback = input.default !== undefined ? ` (default ${input.default})` : "";
    lines.push(`  ${kind} ${input.key}${about}${fallback}`);
  }
  for (const secret of stored)
    lines.push(
      `  Secret ${secret.key} goes to the secret store as ${secret.name} (written as \${keyring:${secret.name}}).`,
    );
  for (const input of plan.toSet.filter((i) => !stored.some((s) => s.key === i.key)))
    lines.push(
      `  Set ${secretReference(input).slice(2, -1)} in the environment before starting it (written as ${secretReference(input)}).`,
    );
  return `${lines.map((line) => terminalText(line)).join("\n")}\n`;
}

/** The server's name in the config: `--as`, else the registry name's last part. */
function localName(options: RegistryAddOptions, name: string): string {
  const local = options.as ?? name.slice(name.indexOf("/") + 1);
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(local) || local === "." || local === "..")
    throw registryEntryUnsafe({
      name,
      problem: `"${local}" cannot be a server name here; choose one with --as NAME`,
    });
  return local;
}

export async function addFromRegistry(
  context: CommandContext,
  text: string,
  rest: readonly string[],
  write: WriteServer,
  target: string,
): Promise<number> {
  const options = context.options as RegistryAddOptions;
  if (rest.length > 0)
    throw registryEntryUnsafe({ name: text, problem: `unexpected "${rest[0]}" after the registry name` });
  const { name, version } = registryNameOf(text);
  const settings = await targetSettings(context, target);
  const found = await fetchEntry(registriesOf(options, settings), name, version);
  const given = givenValues(options);
  const installed = onPath(context.io.env);
  const remote = options.remote === true;
  const local = localName(options, name);
  const draft = planEntry(found, { remote, installed, answer: answerFrom(given, name, false) });
  await askMissing(context, draft.inputs, given);
  const shown = secretMask(draft.inputs, given);
  const stored = await secretsToStore(context, local, draft.inputs, given, options.keyring);
  const plan = planEntry(found, { remote, installed, answer: answerFrom(given, name, true) });
  refuseMalware(settings, plan.origin, name);
  const origin = await pinned(plan);
  context.io.stderr.write(shown(describe(plan, origin, local, stored)));
  if (options["dry-run"]) {
    if (context.global.json) writeJson(context.io, { name: local, origin, dryRun: true });
    return 0;
  }
  if (!options.yes) {
    if (!canAsk(context.io)) throw registryNeedsConfirmation({ name });
    if (!(await confirm(context.io, "Write it? [y/N] "))) {
      context.io.stderr.write("Nothing written.\n");
      return 1;
    }
  }
  // Stored first: a store that cannot be reached fails before the file names a secret it lacks.
  storeSecrets(context, local, stored);
  const { file, exists } = await write(context, local, plan.spec, {
    force: options.force,
    extra: { origin },
  });
  const keyring = stored.map((secret) => secret.name);
  if (context.global.json)
    writeJson(context.io, {
      file,
      created: !exists,
      name: local,
      origin,
      ...(keyring.length ? { keyring } : {}),
    });
  else
    context.io.stdout.write(
      `Added server "${terminalText(local)}" (${terminalText(`${origin.name}@${origin.version}`)}) to ${terminalText(file)}\n`,
    );
  return 0;
}
