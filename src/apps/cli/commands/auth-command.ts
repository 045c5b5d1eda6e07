import { AuthStore, defaultAuthDir } from "../../../auth/store.js";
import { isRemote, type RemoteServerDefinition } from "../../../config/model.js";
import { ErrorCode } from "../../../errors/index.js";
import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
import { loadCliConfig } from "../config-choice.js";
import { authDeclaration } from "../declarations/config-commands.js";
import { defaultInputsDir, InputStore } from "../input-store.js";
import { table, writeJson } from "../output.js";
import { terminalText } from "../terminal.js";
import { commandUsage, noRemoteServer } from "../usage-errors.js";

/**
 * `mcp-bridge auth login|logout|status [SERVER]`: OAuth logins for remote servers; `auth
 * forget-inputs`: the remembered answers to the config's VS Code `${input:id}` prompts.
 */
async function runAuth(context: CommandContext): Promise<number> {
  const [sub, name] = context.positionals;
  // A login contacts the server's URL with its headers: a project's server needs consent first.
  const config = await loadCliConfig(context, { consent: sub === "login" });
  if (sub === "forget-inputs") return forgetInputs(context, config.file);
  const remotes = config.servers.filter((s): s is RemoteServerDefinition => isRemote(s.transport));
  const storageDir = defaultAuthDir(context.io.env);
  // The OAuth client (the SDK's auth module) is loaded here: every other command and `--help` skip it.
  const { loginToServer, openBrowser } = await import("../oauth-login.js");
  const find = (): RemoteServerDefinition => {
    if (!name) throw commandUsage(`auth ${sub} SERVER`);
    const server = remotes.find((s) => s.name === name);
    if (!server) throw noRemoteServer({ name });
    return server;
  };
  switch (sub) {
    case "login": {
      const server = find();
      const outcome = await loginToServer(server, {
        settings: config.settings,
        storageDir,
        env: context.io.env,
        logger: context.logger,
        present: (url) => present(context, url, openBrowser),
        signal: context.io.signal,
      });
      if (outcome.ok) {
        if (context.global.json)
          writeJson(context.io, { server: server.name, loggedIn: true, file: outcome.file });
        else
          context.io.stdout.write(
            outcome.where === outcome.file
              ? `Logged in to ${server.name}; the token is stored in ${outcome.file} (mode 0600).\n`
              : `Logged in to ${server.name}; the token is stored in ${outcome.where}.\n`,
          );
        return 0;
      }
      if (outcome.notOAuth && context.global.json)
        writeJson(context.io, {
          server: server.name,
          loggedIn: false,
          error: { code: ErrorCode.Auth, message: outcome.message },
        });
      else context.io.stderr.write(`error: ${terminalText(outcome.message)}\n`);
      return 1;
    }
    case "logout": {
      const server = find();
      new AuthStore(storageDir, server.name, server.url).clear();
      if (context.global.json) writeJson(context.io, { server: server.name, loggedIn: false });
      else context.io.stdout.write(`Logged out of ${server.name}.\n`);
      return 0;
    }
    case "status": {
      const rows = (name ? [find()] : remotes).map((server) => {
        const store = new AuthStore(storageDir, server.name, server.url);
        const stored = store.read();
        return {
          server: server.name,
          loggedIn: Boolean(stored.tokens),
          savedAt: stored.savedAt ?? null,
          file: store.file,
        };
      });
      if (context.global.json) writeJson(context.io, { servers: rows });
      else {
        context.io.stdout.write(
          rows.length === 0
            ? "No remote servers in the config.\n"
            : `${table(
                ["SERVER", "LOGGED IN", "SINCE", "FILE"],
                rows.map((r) => [r.server, r.loggedIn ? "yes" : "no", r.savedAt ?? "-", r.file]),
                context.style,
              )}\n`,
        );
      }
      return 0;
    }
    default:
      throw commandUsage("auth login|logout|status [SERVER] | forget-inputs");
  }
}

/** Forgets every remembered `${input:id}` answer of the config file, so the next run asks again. */
function forgetInputs(context: CommandContext, file: string | undefined): number {
  const store = file === undefined ? undefined : new InputStore(defaultInputsDir(context.io.env), file);
  const forgotten = store?.forget() ?? false;
  if (context.global.json) writeJson(context.io, { config: file ?? null, forgotten });
  else if (!file) context.io.stdout.write("No config file: no remembered inputs.\n");
  else
    context.io.stdout.write(
      forgotten
        ? `Forgot the remembered inputs of ${terminalText(file)}; the next run asks again.\n`
        : `No remembered inputs for ${terminalText(file)}.\n`,
    );
  return 0;
}

/** Shows the authorization URL; opens the system browser on a terminal. */
function present(context: CommandContext, url: URL, openBrowser: (url: URL) => void): void {
  context.io.stderr.write(`Open this URL to log in:\n  ${url.toString()}\n`);
  if (!context.io.stderr.isTTY || context.io.env.MCP_BRIDGE_NO_BROWSER) return;
  openBrowser(url);
}

export const authCommand = defineCommand({
  ...authDeclaration,
  run: runAuth,
});
