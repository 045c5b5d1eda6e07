import {
  secretNotFound,
  secretRevealRefused,
  secretValueMissing,
  secretValueTooLarge,
} from "../../../errors/secret-errors.js";
import { assertSecretName, openSecretStore, type SecretStore } from "../../../util/secret-store.js";
import type { CliIO } from "../cli-io.js";
import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
import { secretsDeclaration } from "../declarations/config-commands.js";
import { writeJson } from "../output.js";
import { askMasked } from "../remembered-inputs.js";
import { canAsk } from "../terminal-ask.js";
import { commandUsage } from "../usage-errors.js";

/**
 * `mcp-bridge secrets set|get|list|rm NAME`: the secrets `${keyring:NAME}` resolves, in the store the
 * environment chooses (see util/secret-store.ts). A value comes from a prompt without echo or from
 * stdin, never from argv (which other users see in `ps` and the shell keeps in its history), and is
 * printed only by `get`, to a pipe or with --reveal.
 */
async function runSecrets(context: CommandContext<{ reveal?: boolean }>): Promise<number> {
  const [sub, name] = context.positionals;
  const store = openSecretStore(context.io.env);
  if (sub === "list") return list(context, store);
  if (name === undefined) throw commandUsage(`secrets ${sub} NAME`);
  assertSecretName(name);
  const { io } = context;
  const json = context.global.json;
  if (sub === "set") {
    const value = await readSecretValue(io, name);
    store.set(name, value);
    if (json) writeJson(io, { stored: name, store: store.kind });
    else
      io.stdout.write(
        `Stored "${name}" in ${store.where}; write \${keyring:${name}} in a config to use it.\n`,
      );
    return 0;
  }
  if (sub === "get") {
    if (io.stdout.isTTY && !context.options.reveal) throw secretRevealRefused({ name });
    const value = store.get(name);
    if (value === undefined) throw secretNotFound({ name, store: store.where });
    if (json) writeJson(io, { name, value });
    else io.stdout.write(`${value}\n`);
    return 0;
  }
  const removed = store.remove(name);
  if (json) writeJson(io, { removed });
  else if (!removed) throw secretNotFound({ name, store: store.where });
  else io.stdout.write(`Removed "${name}" from ${store.where}.\n`);
  return 0;
}

function list(context: CommandContext, store: SecretStore): number {
  const names = store.names();
  if (context.global.json) writeJson(context.io, { store: store.kind, names });
  else if (names.length > 0) context.io.stdout.write(`${names.join("\n")}\n`);
  else context.io.stderr.write(`No secrets in ${store.where}.\n`);
  return 0;
}

/** Largest value read from stdin: keys and tokens are small; a runaway pipe must not fill memory. */
const MAX_VALUE_BYTES = 64 * 1024;

/** The value from a prompt without echo (a terminal), else all of stdin less one trailing newline. */
export async function readSecretValue(io: CliIO, name: string): Promise<string> {
  let value: string | undefined;
  if (canAsk(io)) value = await askMasked(io, `Value for ${name} (not echoed): `);
  else if (io.stdin) value = (await readAll(io.stdin)).replace(/\r?\n$/, "");
  if (!value) throw secretValueMissing({ name });
  return value;
}

async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_VALUE_BYTES) throw secretValueTooLarge({ limit: MAX_VALUE_BYTES });
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export const secretsCommand = defineCommand({ ...secretsDeclaration, run: runSecrets });
