import type { IncomingMessage, ServerResponse } from "node:http";
import { ErrorCode, McpBridgeError, restBodyNotObject, restBodyTooLarge } from "../../../../errors/index.js";
import { errorText } from "../../../../util/text-of.js";

/** The HTTP status each error code is answered with on the REST face; anything else is 500. */
const STATUS: Partial<Record<ErrorCode, number>> = {
  [ErrorCode.BadRequest]: 400,
  [ErrorCode.Auth]: 401,
  [ErrorCode.ToolNotFound]: 404,
  [ErrorCode.PromptNotFound]: 404,
  [ErrorCode.ResourceNotFound]: 404,
  [ErrorCode.ServerNotFound]: 404,
  [ErrorCode.ResourceAmbiguous]: 409,
  [ErrorCode.InvalidArguments]: 422,
  [ErrorCode.RateLimited]: 429,
  [ErrorCode.Aborted]: 499,
  [ErrorCode.ToolExecution]: 502,
  [ErrorCode.ServerStartFailed]: 502,
  [ErrorCode.ServerCrashed]: 502,
  [ErrorCode.RequestFailed]: 502,
  [ErrorCode.ResultTooLarge]: 502,
  [ErrorCode.SamplingFailed]: 502,
  [ErrorCode.ServerUnavailable]: 503,
  [ErrorCode.BridgeClosed]: 503,
  [ErrorCode.ServerStartTimeout]: 504,
  [ErrorCode.ToolTimeout]: 504,
  [ErrorCode.RequestTimeout]: 504,
};

/** An HTTP failure of the REST face: an McpBridgeError with the status it is answered with. */
export class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly error: McpBridgeError,
    readonly headers: Record<string, string> = {},
  ) {
    super(error.message);
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
  res.end(JSON.stringify(body));
}

/**
 * Any failure as `{ "error": { "code", "message" } }`: the code of an McpBridgeError and its message
 * (which names no secret), never a stack. What is not one of ours is an internal error.
 */
export function sendError(res: ServerResponse, error: unknown): void {
  if (error instanceof HttpFailure) {
    sendJson(res, error.status, errorBody(error.error), error.headers);
    return;
  }
  if (error instanceof McpBridgeError) {
    sendJson(res, STATUS[error.code] ?? 500, errorBody(error));
    return;
  }
  sendJson(res, 500, {
    error: { code: ErrorCode.RequestFailed, message: `The gateway failed to answer: ${errorText(error)}` },
  });
}

function errorBody(error: McpBridgeError) {
  return { error: { code: error.code, message: error.message } };
}

/**
 * The request body as one JSON object, read up to `maxBytes` (413 beyond, without reading the rest).
 * An empty body is `{}`: a tool without parameters is called with nothing to send.
 */
export async function readJsonObject(
  req: IncomingMessage,
  maxBytes: number,
): Promise<Record<string, unknown>> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      // Stop reading; the connection closes after the answer, so the rest is never buffered.
      req.pause();
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new HttpFailure(400, restBodyNotObject({ problem: "it is not valid JSON" }));
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    const kind = parsed === null ? "null" : Array.isArray(parsed) ? "an array" : `a ${typeof parsed}`;
    throw new HttpFailure(400, restBodyNotObject({ problem: `it is ${kind}` }));
  }
  return parsed as Record<string, unknown>;
}

function tooLarge(maxBytes: number): HttpFailure {
  return new HttpFailure(413, restBodyTooLarge({ maxBytes }), { connection: "close" });
}
