import type { AuthProvider, FetchLike, OAuthClientProvider, Transport } from "@modelcontextprotocol/client";
import { SSEClientTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

export interface RemoteTransportOptions {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly authProvider?: AuthProvider | OAuthClientProvider;
  readonly fetch?: FetchLike;
}

export function createStreamableHttpTransport(options: RemoteTransportOptions): Transport {
  return new StreamableHTTPClientTransport(new URL(options.url), {
    requestInit: { headers: { ...options.headers } },
    ...(options.authProvider ? { authProvider: options.authProvider } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
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

export function createSseTransport(options: RemoteTransportOptions): Transport {
  // The SDK sends requestInit headers on the EventSource GET as well as on the POSTs.
  return new SSEClientTransport(new URL(options.url), {
    requestInit: { headers: { ...options.headers } },
    ...(options.authProvider ? { authProvider: options.authProvider } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
