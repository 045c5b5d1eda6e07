import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { AuthStore, defaultAuthDir } from "../../auth/index.js";
import { startBridge } from "../../bridge/bridge.js";
import type { RemoteServerDefinition } from "../../config/model.js";
import { ErrorCode } from "../../errors.js";
import { usageError } from "../args.js";
import { defineCommand } from "../command.js";
import type { CommandContext } from "../context.js";
import { loadCliConfig } from "../context.js";
import { table, writeJson } from "../output.js";
import { terminalText } from "../terminal.js";

/** `mcp-bridge auth login|logout|status [SERVER]`: OAuth logins for remote servers. */
async function runAuth(context: CommandContext): Promise<number> {
  const [sub, name] = context.positionals;
  // A login contacts the server's URL with its headers: a project's server needs consent first.
  const config = await loadCliConfig(context, { consent: sub === "login" });
  const remotes = config.servers.filter((s): s is RemoteServerDefinition => s.transport !== "stdio");
  const storageDir = defaultAuthDir(context.io.env);
  const find = (): RemoteServerDefinition => {
    if (!name) throw usageError(`Usage: mcp-bridge auth ${sub} SERVER`);
    const server = remotes.find((s) => s.name === name);
    if (!server) throw usageError(`No remote (HTTP or SSE) server named "${name}" in the config`);
    return server;
  };
  switch (sub) {
    case "login": {
      const server = find();
      const store = new AuthStore(storageDir, server.name, server.url);
      // A new login replaces the old tokens; the client registration is kept and reused. What was there
      // is put back when the server turns out not to use OAuth, and nothing is written if nothing was.
      const before = existsSync(store.file) ? store.read() : undefined;
      if (before?.tokens) store.update(({ tokens: _dropped, ...rest }) => rest);
      const bridge = await startBridge({
        servers: {
          [server.name]: { type: server.transport, url: server.url, restart: false, startupTimeout: "5m" },
        },
        settings: config.settings,
        env: context.io.env,
        logger: context.logger,
        auth: {
          authorization: "loopback",
          storageDir,
          env: context.io.env,
          present: (url) => present(context, url),
        },
      });
      try {
        const status = bridge.server(server.name);
        if (status?.state !== "connected") {
          context.io.stderr.write(
            `error: login to "${server.name}" failed: ${status?.lastError?.message ?? "unknown error"}\n`,
          );
          return 1;
        }
        if (!store.read().tokens) {
          // Connected without asking for authorization: there is no token to keep.
          if (before) store.update(() => before);
          else store.clear();
          const message = `Server "${server.name}" does not use OAuth (it accepted the connection without a login), so there is nothing to log in to; its headers in the config are all it needs.`;
          if (context.global.json)
            writeJson(context.io, {
              server: server.name,
              loggedIn: false,
              error: { code: ErrorCode.Auth, message },
            });
          else context.io.stderr.write(`error: ${terminalText(message)}\n`);
          return 1;
        }
        if (context.global.json)
          writeJson(context.io, { server: server.name, loggedIn: true, file: store.file });
        else
          context.io.stdout.write(
            `Logged in to ${server.name}; the token is stored in ${store.file} (mode 0600).\n`,
          );
        return 0;
      } finally {
        await bridge.close();
      }
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
      throw usageError("Usage: mcp-bridge auth login|logout|status [SERVER]");
  }
}

/** Shows the authorization URL; opens the system browser on a terminal (never through a shell). */
function present(context: CommandContext, url: URL): void {
  context.io.stderr.write(`Open this URL to log in:\n  ${url.toString()}\n`);
  if (!context.io.stderr.isTTY || context.io.env.MCP_BRIDGE_NO_BROWSER) return;
  const opener =
    process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  try {
    spawn(opener, [url.toString()], { stdio: "ignore", detached: true })
      .on("error", () => {})
      .unref();
  } catch {
    // No browser here: the printed URL is enough.
  }
}

export const authCommand = defineCommand({
  name: "auth",
  summary:
    "OAuth login for a remote server (browser + 127.0.0.1 callback); tokens kept per server, mode 0600",
  flags: {},
  positionals: {
    usage: "login|logout|status [SERVER]",
    min: 1,
    max: 2,
    choices: ["login", "logout", "status"],
  },
  examples: ["auth login linear", "auth status", "auth logout linear"],
  run: runAuth,
});
