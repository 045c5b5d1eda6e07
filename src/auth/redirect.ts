import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { browserLoginTimedOut, loginNotRedirected, tooManyRedirects } from "../errors/auth-errors.js";

/**
 * The "browser" step of the authorization code flow. `headless` follows the authorization server's
 * redirects itself (automated tests, conformance, servers that approve without a person); `loopback`
 * listens on 127.0.0.1 for the browser's callback.
 */
export interface AuthorizationStep {
  readonly redirectUrl: string;
  /**
   * The `state` parameter of the next authorization request, when the step needs one to tell its
   * callback apart (the gateway's, where many callers' logins arrive at one URL).
   */
  state?(): string;
  /** Called by the SDK with the authorization URL. */
  start(authorizationUrl: URL): Promise<void>;
  /** The callback's query (code, state, iss), once it arrived; undefined when no flow was started. */
  result(): Promise<URLSearchParams | undefined>;
  close(): Promise<void>;
}

export function headlessStep(redirectUrl: string, fetchImpl: typeof fetch = fetch): AuthorizationStep {
  let pending: Promise<URLSearchParams> | undefined;
  return {
    redirectUrl,
    async start(authorizationUrl) {
      pending = (async () => {
        let url = authorizationUrl.toString();
        for (let hop = 0; hop < 10; hop++) {
          if (url.startsWith(redirectUrl)) return new URL(url).searchParams;
          const response = await fetchImpl(url, { redirect: "manual" });
          const location = response.headers.get("location");
          if (!location) {
            throw loginNotRedirected({ status: response.status });
          }
          url = new URL(location, url).toString();
        }
        throw tooManyRedirects();
      })();
      pending.catch(() => {});
    },
    async result() {
      return pending;
    },
    async close() {},
  };
}

export interface LoopbackOptions {
  /** Port to listen on; 0 picks a free one. Reusing the registered port avoids re-registering. */
  readonly port: number;
  /** Shows the URL to the person (opens a browser, prints it). */
  readonly present: (authorizationUrl: URL) => void | Promise<void>;
  readonly timeoutMs?: number;
}

/** Starts the loopback listener first, so its port is known before the client registers. */
export async function loopbackStep(options: LoopbackOptions): Promise<AuthorizationStep> {
  let resolveResult: (params: URLSearchParams) => void = () => {};
  let rejectResult: (error: Error) => void = () => {};
  const received = new Promise<URLSearchParams>((resolve, reject) => {
    resolveResult = resolve;
    rejectResult = reject;
  });
  received.catch(() => {});
  let started = false;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<p>mcp-bridge: login complete. You can close this tab.</p>");
    resolveResult(url.searchParams);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", resolve);
  });
  const port = (server.address() as AddressInfo).port;
  let timer: NodeJS.Timeout | undefined;
  return {
    redirectUrl: `http://127.0.0.1:${port}/callback`,
    async start(authorizationUrl) {
      started = true;
      timer = setTimeout(() => rejectResult(browserLoginTimedOut()), options.timeoutMs ?? 300_000);
      timer.unref();
      await options.present(authorizationUrl);
    },
    async result() {
      return started ? received : undefined;
    },
    async close() {
      clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
