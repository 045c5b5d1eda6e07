import { McpBridgeError, modelRequestCancelled } from "../../../errors/index.js";
import {
  modelEventMalformed,
  modelHttpError,
  modelNoBody,
  modelStreamBroken,
  modelUnreachable,
} from "../../../errors/model-errors.js";
import { readSse, type SseEvent } from "../sse-events.js";

/**
 * POSTs a streaming request to a model endpoint and yields its events. Every failure is a
 * MODEL_REQUEST error that says what to do: the endpoint down, an HTTP error (its body shortened,
 * never the request's key), or a stream that is not SSE.
 */
export async function* postForEvents(
  provider: string,
  url: string,
  init: { headers: Record<string, string>; body: unknown; signal?: AbortSignal; fetch?: typeof fetch },
): AsyncGenerator<SseEvent> {
  let response: Response;
  try {
    response = await (init.fetch ?? fetch)(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", ...init.headers },
      body: JSON.stringify(init.body),
      signal: init.signal,
    });
  } catch (error) {
    if (init.signal?.aborted) throw modelRequestCancelled();
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (error as Error).message;
    throw modelUnreachable({ provider, origin: new URL(url).origin, reason, cause: error });
  }
  if (!response.ok) {
    const body = (await response.text().catch(() => "")).replace(/\s+/g, " ").slice(0, 300);
    throw modelHttpError({ provider, status: response.status, body });
  }
  if (!response.body) throw modelNoBody({ provider });
  try {
    yield* readSse(response.body);
  } catch (error) {
    if (init.signal?.aborted) throw modelRequestCancelled();
    if (error instanceof McpBridgeError) throw error;
    throw modelStreamBroken({ provider, cause: error });
  }
}

/** One event's JSON, or a MODEL_REQUEST error naming what was malformed. */
export function parseEventJson(provider: string, data: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(data);
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw modelEventMalformed({ provider, data });
}
