import type { IncomingMessage } from "node:http";
import type { InputRounds } from "./input-rounds.js";

/**
 * While the gateway drains it accepts no new call, but a call parked for its client's next round (a
 * 2025-era upstream asked mid-call: see input-rounds.ts) can only end when the client's retry reaches
 * it, wherever the balancer sent that retry first (another replica forwards it here). So a draining
 * gateway still reads a POST to `/mcp` (within the body bound) and answers it when it is the retry of
 * a call parked here; anything else gets the draining 503.
 *
 * Resolves to the parsed body to serve (the request stream is consumed), or undefined to refuse.
 */
export async function parkedRetryBody(
  req: IncomingMessage,
  rounds: InputRounds | undefined,
  maxBodyBytes: number,
  /** The body when it was already read (a request forwarded by another replica: cluster-entry.ts). */
  parsed: unknown,
): Promise<unknown> {
  if (!rounds || rounds.parkedCount === 0 || req.method !== "POST") return undefined;
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
  const token = retryToken(body);
  return token !== undefined && rounds.holds(token) ? body : undefined;
}

/** The `requestState` of a single `tools/call` request (2026-07-28 has no batches). */
function retryToken(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: { requestState?: unknown } };
  if (method !== "tools/call" || typeof params !== "object" || params === null) return undefined;
  return typeof params.requestState === "string" ? params.requestState : undefined;
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
