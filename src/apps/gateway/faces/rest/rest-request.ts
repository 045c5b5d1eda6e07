import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { Bridge, CallUpstream } from "../../../../bridge/api.js";
import { restMissingParameter } from "../../../../errors/index.js";
import type { ClientLimiter } from "../../admission/client-limits.js";
import type { RequestTracker } from "../../admission/request-tracker.js";
import type { RequestForwarder } from "../../forwarding/forward.js";
import { type GatewayProfile, profileAllows } from "../../identity/profile.js";
import { HttpFailure } from "./http-json.js";

export interface RestOptions {
  readonly bridge: Bridge;
  readonly tracker: RequestTracker;
  /** The limiter `/mcp` uses: a client's calls count against the same limits on both faces. */
  readonly limiter: ClientLimiter;
  readonly forwarder: RequestForwarder | undefined;
  readonly maxBodyBytes: number;
  readonly version: string;
  /** Whether callers must present a bearer token. */
  readonly secured: boolean;
  /** Host and Origin names accepted on a loopback bind (DNS rebinding), as `/mcp` does; undefined: any. */
  readonly allowedHosts: readonly string[] | undefined;
  /** How long a listing waits for servers still connecting (GATEWAY_DEFAULTS.listWaitMs). */
  readonly listWaitMs: number;
  /**
   * A caller's own connections to per-caller servers (per-caller/caller-upstreams.ts). REST cannot ask
   * for consent: a caller who authorized over `/mcp` is served with its tokens, others are told to.
   */
  readonly ownUpstream?: (caller: string) => CallUpstream;
}

/** One authenticated REST request: who asks (its profile) and how to answer. */
export interface RestRequest {
  readonly req: IncomingMessage & { auth?: AuthInfo };
  readonly res: ServerResponse;
  readonly url: URL;
  readonly profile: GatewayProfile | undefined;
  readonly options: RestOptions;
}

/** The tools this caller may see. */
export function visibleTools(request: RestRequest) {
  return request.options.bridge
    .tools()
    .filter((tool) => profileAllows(request.profile, tool.server, tool.name));
}

/** A query parameter the route needs (400 without it). */
export function required(request: RestRequest, parameter: string): string {
  const value = request.url.searchParams.get(parameter);
  if (value === null || value === "") {
    throw new HttpFailure(400, restMissingParameter({ parameter, path: request.url.pathname }));
  }
  return value;
}
