import { type ServerDefinition, VALUES_FROM_ENV } from "../../config/model.js";
import { isPublicHeader } from "../../config/secrets.js";
import type { ServerSpec } from "../../config/server-entry.js";
import { carriesSecret, isSecretName } from "../../util/redact.js";
import { openSecretStore } from "../../util/secret-store.js";
import type { CommandContext } from "./command-context.js";
import { canAsk, clean, confirm } from "./terminal-ask.js";

/**
 * Moving a pasted secret out of a config file: `add --env KEY=value` / `--header` and `config import`
 * find literal secrets (a secret-named env variable or a value shaped like a known token, any header
 * but the public ones), store each in the secret store and give back `${keyring:NAME}` to write in its
 * place. On a terminal each is asked about; `--keyring` stores them all without asking; otherwise
 * nothing is stored (a script's config stays as it wrote it).
 */

/** A literal secret in a server's env or headers; `prefix` is kept in the file ("Bearer "). */
export interface LiteralSecret {
  readonly table: "env" | "headers";
  readonly key: string;
  readonly value: string;
  readonly prefix: string;
}

const SCHEME = /^(\s*(?:Bearer|Basic|Token)\s+)(.+)$/i;

/** The secrets written as literals in `values` (a `${…}` reference is already not a literal). */
export function literalSecrets(
  table: "env" | "headers",
  values: Readonly<Record<string, string>>,
): LiteralSecret[] {
  const found: LiteralSecret[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (value.trim() === "" || value.includes("${")) continue;
    if (table === "env" && !isSecretName(key) && !carriesSecret(value)) continue;
    if (table === "headers" && isPublicHeader(key)) continue;
    const scheme = table === "headers" ? SCHEME.exec(value) : null;
    found.push({ table, key, prefix: scheme?.[1] ?? "", value: scheme?.[2] ?? value });
  }
  return found;
}

/** The name a secret is stored under: `SERVER.KEY`, cut to the characters a store name may hold. */
export function keyringNameFor(server: string, key: string): string {
  return `${server}.${key}`.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 128);
}

export type KeyringMode = "always" | "ask" | "never";

/** `--keyring` stores without asking; a terminal is asked; a script is left alone. */
export function keyringMode(context: CommandContext, flag: boolean | undefined): KeyringMode {
  if (flag) return "always";
  return canAsk(context.io) ? "ask" : "never";
}

/**
 * Stores the literals chosen (each asked about in "ask" mode) and returns, per table and key, the text
 * to write instead (`Bearer ${keyring:docs.Authorization}`). Nothing is printed of a value.
 */
export async function storeLiterals(
  context: CommandContext,
  server: string,
  literals: readonly LiteralSecret[],
  mode: KeyringMode,
): Promise<Map<string, string>> {
  const replaced = new Map<string, string>();
  if (mode === "never" || literals.length === 0) return replaced;
  const store = openSecretStore(context.io.env);
  for (const literal of literals) {
    const name = keyringNameFor(server, literal.key);
    const what = literal.table === "env" ? `env ${literal.key}` : `header ${literal.key}`;
    const question = `Store the ${clean(what)} of "${clean(server)}" in ${store.where} and write \${keyring:${name}} instead? [y/N] `;
    if (mode === "ask" && !(await confirm(context.io, question))) continue;
    store.set(name, literal.value);
    replaced.set(`${literal.table}\0${literal.key}`, `${literal.prefix}\${keyring:${name}}`);
    context.io.stderr.write(
      `Stored the ${clean(what)} of "${clean(server)}" as ${name} in ${store.where}.\n`,
    );
  }
  return replaced;
}

/** `add`'s server with its pasted secrets moved to the store (see storeLiterals). */
export async function specWithKeyring(
  context: CommandContext,
  server: string,
  spec: ServerSpec,
  flag: boolean | undefined,
): Promise<ServerSpec> {
  const table = spec.transport === "stdio" ? "env" : "headers";
  const values = spec.transport === "stdio" ? spec.env : spec.headers;
  const replaced = await storeLiterals(
    context,
    server,
    literalSecrets(table, values),
    keyringMode(context, flag),
  );
  if (replaced.size === 0) return spec;
  const next = Object.fromEntries(
    Object.entries(values).map(([key, value]) => [key, replaced.get(`${table}\0${key}`) ?? value]),
  );
  return spec.transport === "stdio" ? { ...spec, env: next } : { ...spec, headers: next };
}

/** One secret `config import` stored: which server's which value, under which name. */
export interface StoredLiteral {
  readonly server: string;
  readonly table: "env" | "headers";
  readonly key: string;
  readonly reference: string;
}

/**
 * `config import --from HOST`: the literal secrets in the host's file, stored as the user chooses. The
 * host's own file is left as it is: the host reads it and would not resolve `${keyring:…}`. The
 * references are for the user's mcp-bridge config.
 */
export async function storeImportedLiterals(
  context: CommandContext,
  servers: readonly ServerDefinition[],
  flag: boolean | undefined,
): Promise<StoredLiteral[]> {
  const mode = keyringMode(context, flag);
  const stored: StoredLiteral[] = [];
  for (const server of servers) {
    if (server.transport === "in-process") continue;
    const fromEnv = new Set((server[VALUES_FROM_ENV] ?? []).map((entry) => entry.value));
    const table = server.transport === "stdio" ? "env" : "headers";
    const values = server.transport === "stdio" ? server.env : server.headers;
    // A value the host took from its environment is not written in its file: nothing to move.
    const literals = literalSecrets(table, values).filter((literal) => !fromEnv.has(literal.value));
    const replaced = await storeLiterals(context, server.name, literals, mode);
    for (const [at, reference] of replaced) {
      const key = at.slice(at.indexOf("\0") + 1);
      stored.push({ server: server.name, table, key, reference });
    }
  }
  return stored;
}
