import { AbortError, ErrorCode, errorMessages, McpBridgeError } from "../../../errors/index.js";
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
    if (init.signal?.aborted) throw new AbortError(errorMessages.modelRequestCancelled());
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new McpBridgeError(
      ErrorCode.ModelRequest,
      `Cannot reach the ${provider} endpoint ${new URL(url).origin} (${reason}). Check the base URL and that the server is running.`,
      { cause: error },
    );
  }
  if (!response.ok) {
    const body = (await response.text().catch(() => "")).replace(/\s+/g, " ").slice(0, 300);
    const hint =
      response.status === 401 || response.status === 403
        ? " Check the API key (and that it is for this endpoint)."
        : response.status === 404
          ? " Check the base URL and the model name."
          : response.status === 429
            ? " The endpoint is rate limiting: wait and retry."
            : "";
    throw new McpBridgeError(
      ErrorCode.ModelRequest,
      `The ${provider} endpoint answered HTTP ${response.status}${body ? `: ${body}` : ""}.${hint}`,
    );
  }
  if (!response.body)
    throw new McpBridgeError(ErrorCode.ModelRequest, `The ${provider} endpoint sent no body.`);
  try {
    yield* readSse(response.body);
  } catch (error) {
    if (init.signal?.aborted) throw new AbortError(errorMessages.modelRequestCancelled());
    if (error instanceof McpBridgeError) throw error;
    throw new McpBridgeError(
      ErrorCode.ModelRequest,
      `The ${provider} stream broke off: ${(error as Error).message}.`,
      { cause: error },
    );
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
  throw new McpBridgeError(
    ErrorCode.ModelRequest,
    `The ${provider} stream sent a malformed event (${data.slice(0, 80)}${data.length > 80 ? "..." : ""}).`,
  );
}
