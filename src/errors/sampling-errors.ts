/**
 * Model requests: a server's sampling request answered through an OpenAI-compatible endpoint, and
 * the agent's own model requests and turns cancelled by the person.
 */
import { AbortError, ErrorCode, McpBridgeError } from "./error-classes.js";

export function samplingNoModel(fields: { server: string }): McpBridgeError {
  const { server } = fields;
  return new McpBridgeError(
    ErrorCode.SamplingFailed,
    `Sampling for server "${server}": no model configured; set OPENAI_MODEL or pass { model }.`,
    { server },
  );
}

export function samplingUnreachable(fields: {
  server: string;
  baseUrl: string;
  detail: string;
  cause?: unknown;
}): McpBridgeError {
  const { server, baseUrl, detail, cause } = fields;
  return new McpBridgeError(
    ErrorCode.SamplingFailed,
    `Sampling for server "${server}": the model endpoint ${baseUrl} could not be reached (${detail}).`,
    { server, cause },
  );
}

/** `body` is the endpoint's answer (the first 300 characters are quoted). */
export function samplingHttp(fields: { server: string; status: number; body: string }): McpBridgeError {
  const { server, status, body } = fields;
  return new McpBridgeError(
    ErrorCode.SamplingFailed,
    `Sampling for server "${server}": the model endpoint answered HTTP ${status}: ${body.slice(0, 300)}`,
    { server },
  );
}

export function samplingNotJson(fields: { server: string }): McpBridgeError {
  const { server } = fields;
  return new McpBridgeError(
    ErrorCode.SamplingFailed,
    `Sampling for server "${server}": the model endpoint did not answer JSON.`,
    { server },
  );
}

export function samplingTooLarge(fields: { maxBytes: number }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.SamplingFailed,
    `The model endpoint sent more than ${fields.maxBytes} bytes.`,
  );
}

export function samplingNoMessage(fields: { server: string }): McpBridgeError {
  const { server } = fields;
  return new McpBridgeError(
    ErrorCode.SamplingFailed,
    `Sampling for server "${server}": the model endpoint's answer has no message.`,
    { server },
  );
}

export function modelRequestCancelled(): AbortError {
  return new AbortError("The model request was cancelled.");
}

export function turnCancelled(): AbortError {
  return new AbortError("The turn was cancelled.");
}

// --- wording of the SDK ProtocolErrors answered to a server's request (the SDK class at the site) ---

/** A server's sampling request the client-side handler failed to answer. */
export const samplingFailedInClientText = ({ reason }: { reason: string }) =>
  `Sampling failed in the client: ${reason}`;

/** A client's elicitation answer that does not match the schema the server asked for. */
export const elicitationMismatchText = ({ server, detail }: { server: string; detail: string }) =>
  `The client's answer to the elicitation of server "${server}" did not match the requested schema (${detail}); nothing was sent.`;
