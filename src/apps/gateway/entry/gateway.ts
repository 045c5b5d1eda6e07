import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { RequestTracker } from "../admission/request-tracker.js";
import { httpAnswers } from "../wire-errors.js";
import { type GatewayOptions, resolveGatewayOptions } from "./gateway-options.js";
import { answer, type GatewayParts, gatewayParts } from "./gateway-parts.js";
import { gatewayRoutes, METADATA_PATH, router } from "./http-routes.js";

export type { GatewayOptions } from "./gateway-options.js";

export interface Gateway {
  /** The MCP endpoint, e.g. `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  readonly tracker: RequestTracker;
  /**
   * Stop accepting new calls, wait (bounded by `drainTimeoutMs`) for the calls in flight and for the
   * calls parked for their client's next round, answering the retries those need, then close.
   */
  drain(): Promise<void>;
  /** Close at once. The bridge stays open: it belongs to the caller. */
  close(): Promise<void>;
}

/** After the last call settles, how long drain waits for its response to be written. */
const RESPONSE_FLUSH_MS = 2_000;

/** setTimeout's longest delay; a longer one (an infinite drain bound) would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Serves the bridge's merged catalog as one MCP server over Streamable HTTP (both protocol eras). */
export async function startGateway(given: GatewayOptions): Promise<Gateway> {
  const options = resolveGatewayOptions(given);
  const parts = await gatewayParts(options);
  const route = router(gatewayRoutes(parts));
  const http = createServer((req, res) => {
    route(req, res).catch((error) => {
      if (!res.headersSent) answer(res, httpAnswers.internal(error));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port, options.host, () => resolve());
  });
  const address = http.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  parts.state.url = `http://${shownHost}:${address.port}/mcp`;
  parts.auth.listening(parts.state.url, `http://${shownHost}:${address.port}${METADATA_PATH}/mcp`);
  return new HttpGateway(parts, http);
}

/** A listening HTTP gateway: its parts, its listener, and how it stops. */
class HttpGateway implements Gateway {
  readonly #parts: GatewayParts;
  readonly #http: Server;
  #listenerClosed: Promise<void> | undefined;
  #closed: Promise<void> | undefined;

  constructor(parts: GatewayParts, http: Server) {
    this.#parts = parts;
    this.#http = http;
  }

  get url(): string {
    return this.#parts.state.url;
  }

  get tracker(): RequestTracker {
    return this.#parts.tracker;
  }

  // Properties, not methods: a caller may pass `gateway.close` along on its own (a signal handler).
  readonly close = (): Promise<void> => {
    this.#closed ??= (async () => {
      this.#http.closeAllConnections();
      await this.#stopListening();
      await this.#parts.endpoint.close();
      await this.#parts.callers.close();
      await this.#parts.store?.close();
    })();
    return this.#closed;
  };

  readonly drain = async (): Promise<void> => {
    const { options, state } = this.#parts;
    const rounds = options.forwarder?.rounds;
    // Stop accepting: idle keep-alive connections closed, a new request on a busy one gets 503. New
    // connections too are refused, unless calls may need their client's next round (a forwarder):
    // a call parked here (a 2025-era upstream asked mid-call) ends only when its retry gets in, so
    // retries are still served until nothing is in flight or parked. A 2026-07-28 upstream's call
    // parks nothing: its state travels sealed in the client's token, any replica resumes it.
    state.draining = true;
    const listening = rounds === undefined ? this.#stopListening() : undefined;
    this.#http.closeIdleConnections();
    const deadline = Date.now() + options.drainTimeoutMs;
    await this.#settled(deadline);
    // Let the last results reach their clients. Long-lived streams (subscriptions/listen) never end
    // by themselves, hence a short bound of its own.
    const flushBy = Math.min(deadline, Date.now() + RESPONSE_FLUSH_MS);
    while (state.active.size > 0 && Date.now() < flushBy) await new Promise((r) => setTimeout(r, 20));
    await this.close();
    await (listening ?? this.#stopListening());
  };

  /** Waits, until `deadline`, for no call in flight and none parked for its client's next round. */
  async #settled(deadline: number): Promise<void> {
    const { tracker, options } = this.#parts;
    const rounds = options.forwarder?.rounds;
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(
        () => {
          timedOut = true;
          resolve();
        },
        Math.min(MAX_TIMER_MS, Math.max(0, deadline - Date.now())),
      );
    });
    // A retry resumes a parked call (in flight again), which ends or parks anew: wait until neither.
    const settled = () => tracker.inFlight === 0 && (rounds?.parkedCount ?? 0) === 0;
    while (!timedOut && !settled()) {
      await Promise.race([Promise.all([tracker.idle(), rounds?.idle()]), bound]);
    }
    clearTimeout(timer);
  }

  #stopListening(): Promise<void> {
    this.#listenerClosed ??= new Promise<void>((resolve) => this.#http.close(() => resolve()));
    return this.#listenerClosed;
  }
}
