import { spawn } from "node:child_process";
import { AuthStore } from "../../auth/oauth-client.js";
import { startBridge } from "../../bridge/bridge.js";
import type { BridgeSettings, RemoteServerDefinition } from "../../config/model.js";
import type { Logger } from "../../util/logger.js";

/**
 * The OAuth login of one remote server, shared by `mcp-bridge auth login` and chat's `/mcp auth`:
 * a one-server bridge in loopback mode runs the authorization code flow (the person opens the URL,
 * the browser comes back to a 127.0.0.1 callback) and the token lands in the server's auth store.
 */

export type LoginOutcome =
  /** `where`: the token file's path, or "the OS credential store" when it keeps the tokens. */
  | { readonly ok: true; readonly file: string; readonly where: string }
  /** `notOAuth`: the server accepted the connection without a login; nothing was stored. */
  | { readonly ok: false; readonly message: string; readonly notOAuth?: boolean };

export interface LoginOptions {
  readonly settings: BridgeSettings;
  readonly storageDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  /** Shows the authorization URL (and may open a browser). */
  readonly present: (url: URL) => void;
  /** Ends a login that is still waiting for the browser. */
  readonly signal?: AbortSignal;
}

export async function loginToServer(
  server: RemoteServerDefinition,
  options: LoginOptions,
): Promise<LoginOutcome> {
  const store = new AuthStore(options.storageDir, server.name, server.url);
  // A new login replaces the old tokens; the client registration is kept and reused. What was there
  // is put back when the server turns out not to use OAuth, and nothing is written if nothing was.
  const before = store.exists() ? store.read() : undefined;
  if (before?.tokens) store.update(({ tokens: _dropped, ...rest }) => rest);
  const bridge = await startBridge({
    servers: {
      [server.name]: { type: server.transport, url: server.url, restart: false, startupTimeout: "5m" },
    },
    settings: options.settings,
    env: options.env,
    logger: options.logger,
    wait: false,
    auth: {
      authorization: "loopback",
      storageDir: options.storageDir,
      env: options.env,
      present: options.present,
    },
  });
  const abort = () => void bridge.close();
  options.signal?.addEventListener("abort", abort, { once: true });
  try {
    await bridge.ready();
    const status = bridge.server(server.name);
    if (options.signal?.aborted) return { ok: false, message: `login to "${server.name}" was cancelled` };
    if (status?.state !== "connected") {
      return {
        ok: false,
        message: `login to "${server.name}" failed: ${status?.lastError?.message ?? "unknown error"}`,
      };
    }
    if (!store.read().tokens) {
      // Connected without asking for authorization: there is no token to keep.
      if (before) store.update(() => before);
      else store.clear();
      return {
        ok: false,
        notOAuth: true,
        message: `Server "${server.name}" does not use OAuth (it accepted the connection without a login), so there is nothing to log in to; its headers in the config are all it needs.`,
      };
    }
    return { ok: true, file: store.file, where: store.location };
  } finally {
    options.signal?.removeEventListener("abort", abort);
    await bridge.close();
  }
}

/** Opens the system browser at the URL (never through a shell); quietly nothing where there is none. */
export function openBrowser(url: URL): void {
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
