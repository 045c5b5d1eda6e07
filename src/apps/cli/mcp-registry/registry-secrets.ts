import { openSecretStore } from "../../../util/secret-store.js";
import type { CommandContext } from "../command-context.js";
import { askMasked } from "../remembered-inputs.js";
import { keyringMode, keyringNameFor } from "../secret-offer.js";
import { terminalText } from "../terminal.js";
import { confirm } from "../terminal-ask.js";
import type { Input } from "./entry-inputs.js";
import { secretReference } from "./entry-plan.js";

/**
 * The secret values a registry entry asks for (`isSecret`), kept out of the config file: typed on a
 * terminal without echo, or given with `--var` and moved with `--keyring` (or after a question on a
 * terminal), each goes to the secret store and the file gets `${keyring:SERVER.KEY}`. Nothing is
 * stored before the user agreed to write the entry, and a value is never printed.
 */

/** A secret to store under `name` once the entry is written; `key` is the input it answers. */
export interface PendingSecret {
  readonly key: string;
  readonly name: string;
  readonly value: string;
}

function secretInputs(inputs: readonly Input[]): Input[] {
  const seen = new Set<string>();
  return inputs.filter((input) => input.secret && !seen.has(input.key) && seen.add(input.key));
}

async function typedSecret(context: CommandContext, input: Input, name: string, where: string) {
  const about = input.description ? ` (${terminalText(input.description)})` : "";
  const kind = input.required ? "" : ", optional";
  const question =
    `${terminalText(input.key)}${about}${kind}: not echoed, stored in ${where} as ${name}; ` +
    `empty to read ${secretReference(input).slice(2, -1)} from the environment instead: `;
  const answer = await askMasked(context.io, question);
  return answer === undefined || answer.trim() === "" ? undefined : answer;
}

/**
 * Chooses which secret inputs of `server` go to the store, and sets their `${keyring:…}` reference in
 * `given` (so the entry is planned with the reference, never the value). Without a terminal and
 * without `--keyring`, a `--var` value is left as given (a script's choice) and a missing one stays `${VAR}`.
 */
export async function secretsToStore(
  context: CommandContext,
  server: string,
  inputs: readonly Input[],
  given: Map<string, string>,
  flag: boolean | undefined,
): Promise<PendingSecret[]> {
  const mode = keyringMode(context, flag);
  if (mode === "never") return [];
  const where = openSecretStore(context.io.env).where;
  const pending: PendingSecret[] = [];
  for (const input of secretInputs(inputs)) {
    const name = keyringNameFor(server, input.key);
    const known = given.get(input.key);
    let value: string | undefined;
    if (known === undefined) {
      if (mode === "ask") value = await typedSecret(context, input, name, where);
    } else if (known.trim() !== "" && !known.includes("${")) {
      const question = `Store the secret ${terminalText(input.key)} of "${terminalText(server)}" in ${where} and write \${keyring:${name}} instead? [y/N] `;
      if (mode === "always" || (await confirm(context.io, question))) value = known;
    }
    if (value === undefined) continue;
    pending.push({ key: input.key, name, value });
    given.set(input.key, `\${keyring:${name}}`);
  }
  return pending;
}

/** Stores the secrets chosen; called after the user agreed and before the entry is written. */
export function storeSecrets(context: CommandContext, server: string, pending: readonly PendingSecret[]) {
  if (pending.length === 0) return;
  const store = openSecretStore(context.io.env);
  for (const secret of pending) {
    store.set(secret.name, secret.value);
    context.io.stderr.write(
      `Stored the secret ${terminalText(secret.key)} of "${terminalText(server)}" as ${secret.name} in ${store.where}.\n`,
    );
  }
}

/** Masks, in what is shown before writing, every secret value given on the command line. */
export function secretMask(
  inputs: readonly Input[],
  given: ReadonlyMap<string, string>,
): (text: string) => string {
  const values = secretInputs(inputs)
    .map((input) => given.get(input.key))
    .filter((value): value is string => value !== undefined && value !== "" && !value.includes("${"));
  return (text) => values.reduce((shown, value) => shown.split(value).join("***"), text);
}
