/**
 * The agent's model endpoint (OpenAI-compatible Chat Completions, Anthropic Messages): unreachable,
 * an HTTP error, a broken or malformed stream, an error event; and choosing a model (USAGE).
 */
import { ErrorCode, McpBridgeError } from "./error-classes.js";

const modelRequest = (message: string, cause?: unknown) =>
  new McpBridgeError(ErrorCode.ModelRequest, message, { cause });

export function modelUnreachable(fields: {
  provider: string;
  origin: string;
  reason: string;
  cause?: unknown;
}): McpBridgeError {
  const { provider, origin, reason, cause } = fields;
  return modelRequest(
    `Cannot reach the ${provider} endpoint ${origin} (${reason}). Check the base URL and that the server is running.`,
    cause,
  );
}

/** `body` is the endpoint's answer, already cut short; the hint follows the status. */
export function modelHttpError(fields: { provider: string; status: number; body: string }): McpBridgeError {
  const { provider, status, body } = fields;
  const hint =
    status === 401 || status === 403
      ? " Check the API key (and that it is for this endpoint)."
      : status === 404
        ? " Check the base URL and the model name."
        : status === 429
          ? " The endpoint is rate limiting: wait and retry."
          : "";
  return modelRequest(`The ${provider} endpoint answered HTTP ${status}${body ? `: ${body}` : ""}.${hint}`);
}

export const modelNoBody = ({ provider }: { provider: string }) =>
  modelRequest(`The ${provider} endpoint sent no body.`);

export const modelStreamBroken = ({ provider, cause }: { provider: string; cause: unknown }) =>
  modelRequest(`The ${provider} stream broke off: ${(cause as Error).message}.`, cause);

export const modelEventMalformed = ({ provider, data }: { provider: string; data: string }) =>
  modelRequest(
    `The ${provider} stream sent a malformed event (${data.slice(0, 80)}${data.length > 80 ? "..." : ""}).`,
  );

/** An error event in the stream; `provider` undefined: an OpenAI-compatible endpoint's. */
export function modelReportedError(fields: {
  provider?: string;
  type?: string;
  message: string;
}): McpBridgeError {
  const { provider, type, message } = fields;
  return modelRequest(
    provider === undefined
      ? `The model endpoint reported an error: ${message}`
      : `The ${provider} endpoint reported ${type ?? "an error"}: ${message}`,
  );
}

export const modelStreamIncomplete = () =>
  modelRequest("The model stream ended before the answer was complete.");

/** No model (or key) to use: `message` says which variable or flag to set. */
export const modelChoiceMissing = ({ message }: { message: string }) =>
  new McpBridgeError(ErrorCode.Usage, message);

/** The model list endpoint answered with an HTTP error (the caller says which endpoint). */
export const modelListHttp = ({ status }: { status: number }) => new Error(`HTTP ${status}`);

/** One server-sent event larger than the stream reader accepts. */
export const streamEventTooLarge = ({ maxBytes }: { maxBytes: number }) =>
  new Error(`a stream event exceeded ${maxBytes} bytes`);
