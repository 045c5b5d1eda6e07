import type { IncomingMessage } from "node:http";

/**
 * While the gateway drains it accepts no new call, but a call already begun may still need its
 * client's next round: a call parked here for a 2025-era upstream that asked mid-call ends only when
 * the retry reaches it (directly, or forwarded by the replica the balancer picked), and a retry of a
 * 2026-07-28 upstream's round continues a call the client has already started (refusing it would fail
 * that call: a balancer does not send a refused POST elsewhere). So a draining gateway still reads a
 * POST to `/mcp` (within the body bound) and serves it when it is a `tools/call` retry, one carrying a
 * `requestState`; the token is opened as always (a forged one is refused there). Anything else gets
 * the draining 503.
 *
 * Resolves to the parsed body to serve (the request stream is consumed), or undefined to refuse.
 */
export async function retryBody(
  req: IncomingMessage,
  maxBodyBytes: number,
  /** The body when it was already read (a request forwarded by another replica: cluster-entry.ts). */
  parsed: unknown,
): Promise<unknown> {
  if (req.method !== "POST") return undefined;
  let body = parsed;
  if (body === undefined) {
    const text = await readBounded(req, maxBodyBytes);
    if (text === undefined) return undefined;
    try {
      body = JSON.parse(text);
    } catch {
      return undefined;
    }
  }
  return isRetry(body) ? body : undefined;
}

/** Whether the body is one `tools/call` with a `requestState` (2026-07-28 has no batches). */
function isRetry(body: unknown): boolean {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const { method, params } = body as { method?: unknown; params?: { requestState?: unknown } };
  if (method !== "tools/call" || typeof params !== "object" || params === null) return false;
  return typeof params.requestState === "string";
}

/** The request's body as text, or undefined past `maxBytes` or when the client went away. */
async function readBounded(req: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) return undefined;
      chunks.push(chunk);
    }
  } catch {
    return undefined;
  }
  return Buffer.concat(chunks).toString("utf8");
}
