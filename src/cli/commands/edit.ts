import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { addServer, editFormatOf, notEditable, removeServer } from "../../config/edit.js";
import { loadConfig } from "../../config/load.js";
import { configSearchPaths } from "../../config/search-paths.js";
import { ConfigError, ErrorCode, McpBridgeError, ServerConnectionError } from "../../errors.js";
import { withFileLock } from "../../util/file-lock.js";
import { replaceFileAtomic, writeFileExclusive } from "../../util/private-path.js";
import { redactUrl } from "../../util/redact.js";
import { didYouMean } from "../../util/suggest.js";
import { splitCommandLine } from "../ad-hoc.js";
import { usageError } from "../args.js";
import { defineCommand } from "../command.js";
import type { CommandContext } from "../context.js";
import { writeJson } from "../output.js";
import { terminalText } from "../terminal.js";

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
    ...(context.global.config ? { path: context.global.config } : {}),
  });
  const used = paths.find((candidate) => candidate.used);
  if (used) return { file: used.path, exists: used.exists };
  if (!creating)
    throw new ConfigError(
      ErrorCode.ConfigNotFound,
      "No config file found to remove a server from; see `mcp-bridge config paths`.",
    );
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

/** key=value pairs of --env / --header. */
function pairs(values: readonly string[] | undefined, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values ?? []) {
    const at = value.indexOf("=");
    if (at <= 0) throw usageError(`--${flag} takes KEY=VALUE (got ${JSON.stringify(value)})`);
    out[value.slice(0, at)] = value.slice(at + 1);
  }
  return out;
}

const masked = (values: Record<string, string>) =>
  Object.fromEntries(Object.keys(values).map((k) => [k, "***"]));

async function runAdd(context: CommandContext): Promise<number> {
  const [name, ...rest] = context.positionals;
  const options = context.options as {
    url?: string;
    transport?: string;
    env?: string[];
    header?: string[];
    cwd?: string;
    force?: boolean;
  };
  if (!name || !/^[A-Za-z0-9_.-]{1,64}$/.test(name))
    throw usageError("add needs a server NAME of letters, digits, '.', '_' or '-' (at most 64)");
  const command =
    context.terminatorAt !== undefined
      ? rest
      : rest.length === 1
        ? splitCommandLine(rest[0] as string)
        : rest;
  if (command.length > 0 === (options.url !== undefined))
    throw usageError('add takes either a command after "--" (add NAME -- CMD ARGS) or --url URL');
  const env = pairs(options.env, "env");
  const headers = pairs(options.header, "header");
  const entry: Record<string, unknown> = options.url
    ? {
        type: options.transport === "sse" ? "sse" : "http",
        url: options.url,
        ...(Object.keys(headers).length > 0 ? { headers } : {}),
      }
    : {
        command: command[0],
        args: command.slice(1),
        ...(Object.keys(env).length > 0 ? { env } : {}),
        ...(options.cwd ? { cwd: options.cwd } : {}),
      };
  if (options.url && !URL.canParse(options.url))
    throw usageError(
      `--url needs a URL such as https://example.com/mcp (got ${JSON.stringify(redactUrl(options.url))})`,
    );
  const { file } = targetFile(context, true);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const exists = await underConfigLock(file, async () => {
    const exists = existsSync(file);
    const text = exists ? readFileSync(file, "utf8") : "";
    const before = exists ? await serverNames(file, context) : [];
    if (before.includes(name) && !options.force)
      throw new McpBridgeError(
        ErrorCode.Usage,
        `Server "${name}" is already in ${file}; pass --force to replace it, or choose another name.`,
      );
    const format = editFormatOf(file);
    const base = before.includes(name) ? (removeServer(text, format, name) ?? text) : text;
    await checkedWrite(context, file, addServer(base, format, name, entry), [...new Set([...before, name])]);
    return exists;
  });
  // The URL's password and secret-looking query values are written to the file but never printed.
  const url = options.url === undefined ? undefined : redactUrl(options.url);
  const shown = {
    ...entry,
    url,
    ...(entry.env ? { env: masked(env) } : {}),
    ...(entry.headers ? { headers: masked(headers) } : {}),
  };
  if (context.global.json) writeJson(context.io, { file, created: !exists, name, server: shown });
  else
    context.io.stdout.write(
      `${exists ? "Added" : "Created"} ${terminalText(file)}${exists ? ":" : " with"} server "${terminalText(name)}" (${url ? terminalText(url) : terminalText(command.join(" "))})\n`,
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
  if (!known.includes(name))
    throw new ServerConnectionError(
      ErrorCode.ServerNotFound,
      `No server named "${name}" in ${file}${didYouMean(name, known) || "."} Run \`mcp-bridge list\` to see them.`,
      { server: name },
    );
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
  name: "add",
  summary: "add a server to the config file, keeping its comments and formatting",
  flags: {
    url: {
      type: "string",
      value: "URL",
      description: "a remote server (Streamable HTTP) instead of a command",
    },
    transport: {
      type: "string",
      value: "http|sse",
      description: "with --url: sse for a legacy HTTP+SSE server",
    },
    env: {
      type: "string",
      multiple: true,
      value: "KEY=VALUE",
      description: "an environment variable of the server",
    },
    header: {
      type: "string",
      multiple: true,
      value: "KEY=VALUE",
      description: "an HTTP header (with --url)",
    },
    cwd: { type: "string", value: "DIR", description: "the server's working directory" },
    force: { type: "boolean", description: "replace a server of that name" },
  },
  positionals: { usage: "NAME [-- COMMAND ARGS...]", min: 1, max: Number.POSITIVE_INFINITY },
  description:
    "Writes to --config, else the first config file of the search order, else creates ~/.config/mcp-bridge/mcp.json. The result is loaded before the file is replaced; values of --env and --header are written but never printed.",
  examples: [
    "add memory -- npx -y @modelcontextprotocol/server-memory",
    'add docs --url https://example.com/mcp --header "Authorization=Bearer $TOKEN"',
  ],
  run: runAdd,
});

export const removeCommand = defineCommand({
  name: "remove",
  aliases: ["rm"],
  summary: "remove a server from the config file that defines it",
  flags: {},
  positionals: { usage: "NAME", min: 1, max: 1 },
  examples: ["remove memory"],
  run: runRemove,
});
