/**
 * One raw 2026-07-28 `tools/call` over HTTP, as a client that declares elicitation sends it: no SDK
 * client in between, so a test sees each input round (the `requestState` token and the status) and can
 * send the retry to any gateway it likes.
 */
export interface ModernCallAnswer {
  readonly status: number;
  readonly result?: {
    resultType?: string;
    requestState?: string;
    inputRequests?: Record<string, { method: string; params?: { message?: string } }>;
    content?: { type: string; text?: string }[];
    isError?: boolean;
  };
  readonly error?: { code: number; message: string };
  /** The replica (host:port) a balancer in front says it passed the request to (bench/cluster/nginx.ts). */
  readonly upstream?: string;
}

/** The header the bench's nginx names the replica (or replicas, tried in turn) that had a request in. */
export const UPSTREAM_HEADER = "x-mcp-bridge-upstream";

export interface ModernCall {
  readonly name: string;
  readonly arguments?: Record<string, unknown>;
  /** The bearer token, when the gateway wants one. */
  readonly token?: string;
  /** A retry: the token of the previous round and the answers (`inputResponses`) to its questions. */
  readonly retry?: { readonly requestState: string; readonly inputResponses?: Record<string, unknown> };
  readonly timeoutMs?: number;
}

export async function modernToolCall(url: string | URL, call: ModernCall): Promise<ModernCallAnswer> {
  const params: Record<string, unknown> = {
    name: call.name,
    arguments: call.arguments ?? {},
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
      "io.modelcontextprotocol/clientInfo": { name: "modern-call", version: "1" },
    },
  };
  if (call.retry) {
    params.requestState = call.retry.requestState;
    if (call.retry.inputResponses) params.inputResponses = call.retry.inputResponses;
  }
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": call.name,
  };
  if (call.token) headers.authorization = `Bearer ${call.token}`;
  const response = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params }),
    signal: AbortSignal.timeout(call.timeoutMs ?? 15_000),
  });
  const text = await response.text();
  // A JSON answer, or the last `data:` line of an SSE one; anything else (a balancer's HTML page) is
  // reported by status alone.
  const data = text.trimStart().startsWith("{") ? text : [...text.matchAll(/^data: (.*)$/gm)].at(-1)?.[1];
  let parsed: { result?: ModernCallAnswer["result"]; error?: ModernCallAnswer["error"] } = {};
  try {
    parsed = data ? JSON.parse(data) : {};
  } catch {
    parsed = {};
  }
  const upstream = response.headers.get(UPSTREAM_HEADER) ?? undefined;
  return { status: response.status, result: parsed.result, error: parsed.error, upstream };
}

/** The text of a call's first content block. */
export function firstText(answer: ModernCallAnswer): string | undefined {
  return answer.result?.content?.[0]?.text;
}
