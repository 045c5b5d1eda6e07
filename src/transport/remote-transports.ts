import type { AuthProvider, FetchLike, OAuthClientProvider } from "@modelcontextprotocol/client";
import { SSEClientTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { keepAliveFetch } from "../sdk/keepalive-fetch.js";
import { boundedFetch, DEFAULT_MAX_RESPONSE_BYTES } from "./bounded-fetch.js";
import { RESULT_TOO_LARGE_RPC_CODE } from "./process-transport.js";
import { relatedLogsFetch } from "./related-notifications.js";
import { SseSessionTransport } from "./sse-session.js";

export interface RemoteTransportOptions {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly authProvider?: AuthProvider | OAuthClientProvider;
  readonly fetch?: FetchLike;
  /** Decoded bytes of one JSON response or SSE event (see bounded-fetch.ts). */
  readonly maxResponseBytes?: number;
}

/** Bodies up to this size may be handed to the transport whole (see sdk/settled-response.ts). */
const SETTLE_BYTES = 1024 * 1024;

/** Every request of a remote transport goes through the bounds of bounded-fetch.ts. */
function fetchFor(options: RemoteTransportOptions): FetchLike {
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  // A settled body is never over the bound, which bounded-fetch.ts enforces only on streamed ones.
  const own = () => keepAliveFetch(fetch, { settleBytes: Math.min(SETTLE_BYTES, maxResponseBytes) });
  return boundedFetch(options.fetch ?? own(), { maxResponseBytes, tooLargeCode: RESULT_TOO_LARGE_RPC_CODE });
}

export function createStreamableHttpTransport(
  options: RemoteTransportOptions,
): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(options.url), {
    requestInit: { headers: { ...options.headers } },
    ...(options.authProvider ? { authProvider: options.authProvider } : {}),
    // A call's own log messages come on its POST's response stream: told to its caller.
    fetch: relatedLogsFetch(fetchFor(options)),
    // Reconnecting is the connection layer's job (one policy for every transport); keep the SDK's
    // stream resumption short so a dead server surfaces instead of being retried silently.
    reconnectionOptions: {
      initialReconnectionDelay: 500,
      maxReconnectionDelay: 5000,
      reconnectionDelayGrowFactor: 2,
      maxRetries: 2,
    },
  });
}

export function createSseTransport(options: RemoteTransportOptions): SseSessionTransport {
  // The SDK sends requestInit headers on the EventSource GET as well as on the POSTs.
  const inner = new SSEClientTransport(new URL(options.url), {
    requestInit: { headers: { ...options.headers } },
    ...(options.authProvider ? { authProvider: options.authProvider } : {}),
    fetch: fetchFor(options),
  });
  return new SseSessionTransport(inner);
}
