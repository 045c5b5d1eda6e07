import { isLegacyRequest } from "@modelcontextprotocol/server";

/**
 * 2025-era clients that accept only `application/json` (HTTP clients of other languages, curl): the
 * SDK's Streamable HTTP transport answers a POST with `text/event-stream` or, for such an Accept
 * header, 406. The spec lets a server answer a POST with one JSON body, so for these clients the
 * gateway asks the transport as an SSE client would, reads the stream to its end (it ends once every
 * request of the POST is answered) and answers the JSON-RPC responses as one JSON body. What the
 * stream carried before the responses (progress, log messages) is dropped: such a client cannot
 * receive it. SSE clients (Accept naming `text/event-stream`) are served as before.
 */
export async function answeredAsJson(
  request: Request,
  serve: (request: Request) => Promise<Response>,
): Promise<Response> {
  if (request.method !== "POST" || !acceptsJsonOnly(request.headers.get("accept"))) return serve(request);
  const text = await request.text();
  const parsed = parsedOrUndefined(text);
  const headers = new Headers(request.headers);
  const forwarded = (accept: string | null) => {
    if (accept !== null) headers.set("accept", accept);
    return new Request(request.url, { method: "POST", headers, body: text, signal: request.signal });
  };
  // A session's requests are 2025-era by definition; otherwise the SDK's own routing decides.
  const legacy = request.headers.has("mcp-session-id") || (await isLegacyRequest(forwarded(null), parsed));
  if (!legacy) return serve(forwarded(null));
  const response = await serve(forwarded("application/json, text/event-stream"));
  const type = response.headers.get("content-type") ?? "";
  if (!type.startsWith("text/event-stream") || response.body === null) return response;
  const messages = jsonRpcResponses(await response.text());
  const answer = new Headers(response.headers);
  answer.set("content-type", "application/json");
  for (const name of ["content-length", "cache-control", "connection", "x-accel-buffering"])
    answer.delete(name);
  if (messages.length === 0) return new Response(null, { status: 202, headers: answer });
  const body = Array.isArray(parsed) ? messages : messages[0];
  return new Response(JSON.stringify(body), { status: response.status, headers: answer });
}

/** An Accept header that takes JSON and not an event stream. */
export function acceptsJsonOnly(accept: string | null): boolean {
  const value = (accept ?? "").toLowerCase();
  return !value.includes("text/event-stream") && /application\/json|\*\/\*|application\/\*/.test(value);
}

function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The JSON-RPC responses (results and errors, not notifications or requests) of an SSE body. */
function jsonRpcResponses(stream: string): unknown[] {
  const found: unknown[] = [];
  for (const event of stream.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n");
    if (data === "") continue;
    try {
      const message = JSON.parse(data) as Record<string, unknown>;
      if ("id" in message && ("result" in message || "error" in message)) found.push(message);
    } catch {
      // Not a JSON-RPC message (a comment or keep-alive): nothing to answer with.
    }
  }
  return found;
}
