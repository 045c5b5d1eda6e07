import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { addServer, editFormatOf, notEditable, removeServer } from "../../../config/edit.js";
import { loadConfig } from "../../../config/load.js";
import { configSearchPaths } from "../../../config/search-paths.js";
import { dialectOf, type ServerSpec, serverEntry } from "../../../config/server-entry.js";
import { noConfigFileFor, serverNotInConfig } from "../../../errors/cli-errors.js";
import { withFileLock } from "../../../util/file-lock.js";
import { replaceFileAtomic, writeFileExclusive } from "../../../util/private-path.js";
import { redactUrl } from "../../../util/redact.js";
import { didYouMean } from "../../../util/suggest.js";
import { type AddOptions, addedServer } from "../add-arguments.js";
import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
import { addDeclaration, removeDeclaration } from "../declarations/config-commands.js";
import { addFromRegistry } from "../mcp-registry/registry-add.js";
import { writeJson } from "../output.js";
import { specWithKeyring } from "../secret-offer.js";
import { terminalText } from "../terminal.js";
import {
  addCodexMixedHeader,
  addNameInvalid,
  addServerExists,
  addWordsBeforeTerminator,
} from "../usage-errors.js";

/**
 * `mcp-bridge add NAME -- CMD ARGS` / `add NAME --url URL` and `remove NAME`: edit the config file in
 * place, as `claude mcp add/remove` do, keeping its comments and formatting. Every edit is checked by
 * loading the result before the file is replaced (atomically, keeping its mode, owner and group, and
 * through a symbolic link to the real file): a change the loader would not read exactly as intended
 * leaves the file untouched. Each edit reads, checks and writes under a lock on the file, so
 * concurrent edits (two terminals, a script running several `add`s) all land.
 */

/** The file to edit: --config, else the first config of the search order, else the user's own. */
function targetFile(context: CommandContext, creating: boolean): { file: string; exists: boolean } {
  const paths = configSearchPaths({
    cwd: context.io.cwd,
    env: context.io.env,
    path: context.global.config || undefined,
  });
  const used = paths.find((candidate) => candidate.used);
  if (used) return { file: used.path, exists: used.exists };
  if (!creating) throw noConfigFileFor({ purpose: "remove" });
  const user = paths.find((candidate) => candidate.origin === "user" && candidate.path.endsWith("mcp.json"));
  return { file: user?.path ?? resolve(context.io.cwd, "mcp.json"), exists: false };
}

async function serverNames(file: string, context: CommandContext): Promise<string[]> {
  const config = await loadConfig({ path: file, cwd: context.io.cwd, env: context.io.env });
  return [...config.servers.map((s) => s.name), ...config.skipped.map((s) => s.name)];
}

/**
 * Runs a read-modify-write of the config `file` under its advisory lock. The lock is taken on the real
 * file, so a config reached through a symbolic link and through its real path shares one lock.
 */
function underConfigLock<T>(file: string, edit: () => Promise<T>): Promise<T> {
  let real = file;
  try {
    real = realpathSync(file);
  } catch {
    // not there yet: the file itself is locked
  }
  // Each edit loads the config twice under the lock; a script running dozens of `add`s on a loaded
  // machine queues for longer than the lock's default 10 s. A holder that died is taken over at once.
  return withFileLock(real, edit, { timeoutMs: 60_000 });
}

/**
 * Loads `text` as `file` would be loaded and checks it holds exactly `expected` servers, then replaces
 * the file. The text is checked in a file of its own beside the config (same folder, so relative paths
 * load alike) with an unpredictable name, created exclusively and 0600 (it holds the config's secrets).
 */
async function checkedWrite(
  context: CommandContext,
  file: string,
  text: string,
  expected: readonly string[],
) {
  const temporary = join(
    dirname(file),
    `.mcp-bridge-edit-${randomBytes(8).toString("hex")}${file.endsWith(".toml") ? ".toml" : ".json"}`,
  );
  writeFileExclusive(temporary, text, 0o600);
  try {
    const names = await serverNames(temporary, context).catch((error: unknown) => {
      throw notEditable(file, `the edited file would not load (${(error as Error).message})`);
    });
    const same = names.length === expected.length && expected.every((name) => names.includes(name));
    if (!same) throw notEditable(file, "the edit would not change exactly that server");
  } finally {
    rmSync(temporary, { force: true });
  }
  replaceFileAtomic(file, text, { mode: 0o600, what: "config" });
}

/** A value never printed: only the keys of env and header tables are shown. */
const MASKED_TABLES = ["env", "headers", "http_headers"];

export function shownEntry(entry: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(entry).map(([key, value]) => {
      if (MASKED_TABLES.includes(key) && value && typeof value === "object")
        return [key, Object.fromEntries(Object.keys(value).map((k) => [k, "***"]))];
      // A URL's password and secret-looking query values are never printed.
      return [key, key === "url" && typeof value === "string" ? redactUrl(value) : value];
    }),
  );
}

/**
 * Writes server `name` as `spec` (plus `extra` keys such as `origin`) into the target config, in the
 * file's dialect, under its lock and checked by loading the result. Shared by `add` and its registry form.
 */
export async function writeServer(
  context: CommandContext,
  name: string,
  spec: ServerSpec,
  options: { force?: boolean; extra?: Record<string, unknown> },
): Promise<{ file: string; exists: boolean; entry: Record<string, unknown> }> {
  const { file } = targetFile(context, true);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  return underConfigLock(file, async () => {
    const exists = existsSync(file);
    const text = exists ? readFileSync(file, "utf8") : "";
    const format = editFormatOf(file);
    const { entry, unwritableHeader } = serverEntry(spec, dialectOf(text, format));
    if (unwritableHeader !== undefined) throw addCodexMixedHeader({ file, header: unwritableHeader });
    Object.assign(entry, options.extra);
    const before = exists ? await serverNames(file, context) : [];
    if (before.includes(name) && !options.force) throw addServerExists({ name, file });
    const base = before.includes(name) ? (removeServer(text, format, name) ?? text) : text;
    await checkedWrite(context, file, addServer(base, format, name, entry), [...new Set([...before, name])]);
    return { file, exists, entry };
  });
}

/** The config file `add` would write to, and whether it exists. */
export function addTarget(context: CommandContext): { file: string; exists: boolean } {
  return targetFile(context, true);
}

async function runAdd(context: CommandContext): Promise<number> {
  const [name, ...rest] = context.positionals;
  const options = context.options as AddOptions & { force?: boolean; keyring?: boolean };
  // A registry name (`io.github.owner/server[@version]`) installs from the MCP Registry.
  if (name?.includes("/"))
    return addFromRegistry(context, name, rest, writeServer, targetFile(context, true).file);
  if (!name || !/^[A-Za-z0-9_.-]{1,64}$/.test(name)) throw addNameInvalid();
  // Before `--`, the positionals after NAME; `terminatorAt` counts NAME too.
  const terminatorAt = context.terminatorAt === undefined ? undefined : context.terminatorAt - 1;
  if (terminatorAt !== undefined && terminatorAt > 0)
    throw addWordsBeforeTerminator({ word: rest[0] as string });
  // Pasted secrets go to the secret store (asked on a terminal, --keyring) before the file is written.
  const spec = await specWithKeyring(
    context,
    name,
    addedServer(rest, terminatorAt, options),
    options.keyring,
  );
  const { file, exists, entry } = await writeServer(context, name, spec, options);
  // The URL's password and secret-looking query values are written to the file but never printed.
  const target = spec.transport === "stdio" ? [spec.command, ...spec.args].join(" ") : redactUrl(spec.url);
  if (context.global.json) writeJson(context.io, { file, created: !exists, name, server: shownEntry(entry) });
  else
    context.io.stdout.write(
      `${exists ? "Added" : "Created"} ${terminalText(file)}${exists ? ":" : " with"} server "${terminalText(name)}" (${spec.transport}: ${terminalText(target)})\n`,
    );
  return 0;
}

async function runRemove(context: CommandContext): Promise<number> {
  const [name] = context.positionals as [string];
  const { file } = targetFile(context, false);
  await underConfigLock(file, () => removeUnderLock(context, file, name));
  if (context.global.json) writeJson(context.io, { file, removed: name });
  else context.io.stdout.write(`Removed server "${terminalText(name)}" from ${terminalText(file)}\n`);
  return 0;
}

async function removeUnderLock(context: CommandContext, file: string, name: string): Promise<void> {
  const config = await loadConfig({ path: file, cwd: context.io.cwd, env: context.io.env });
  const known = [...config.servers.map((s) => s.name), ...config.skipped.map((s) => s.name)];
  if (!known.includes(name)) throw serverNotInConfig({ server: name, file, near: didYouMean(name, known) });
  const server = config.servers.find((s) => s.name === name);
  const source = server?.source?.file ?? file;
  if (resolve(source) !== resolve(file))
    throw notEditable(source, `"${name}" comes from another host's config (${source}); remove it there`);
  const text = readFileSync(file, "utf8");
  const edited = removeServer(text, editFormatOf(file), name);
  if (edited === undefined) throw notEditable(file, `"${name}" is not written in a form this command edits`);
  await checkedWrite(
    context,
    file,
    edited,
    known.filter((n) => n !== name),
  );
}

export const addCommand = defineCommand({
  ...addDeclaration,
  run: runAdd,
});

export const removeCommand = defineCommand({
  ...removeDeclaration,
  run: runRemove,
});
