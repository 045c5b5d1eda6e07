import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Bridge } from "../../../../bridge/api.js";
import { errorText } from "../../../../util/text-of.js";
import { upstreamStatus } from "../../forwarding/upstream-status.js";
import { bearerOf } from "../../identity/static-tokens.js";

type Respond = (res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>) => void;

const RESTART = /^\/restart\/([^/]+)$/;

/** Whether `path` is one of the admin routes (answered by `serveAdminRoute`, never by `/mcp`). */
export function isAdminRoute(path: string): boolean {
  return path === "/status" || path === "/reload" || RESTART.test(path);
}

/** A path segment decoded; undefined when its escapes are malformed (no server has such a name). */
function decodedName(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Compares the bearer token with the admin token in constant time (digests of equal length). */
function adminTokenMatches(expected: string, header: string | string[] | undefined): boolean {
  const given = bearerOf(header);
  if (given === undefined) return false;
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(expected), digest(given));
}

/**
 * `GET /status`, `POST /reload`, `POST /restart/{server}`: the upstream servers' status and control,
 * behind the admin token only (never a client token). Without an admin token configured these routes
 * do not exist (404), so a gateway that did not opt in shows nothing more than before.
 */
export async function serveAdminRoute(
  bridge: Bridge,
  adminToken: string | undefined,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
  respond: Respond,
): Promise<void> {
  if (!adminToken) return respond(res, 404, { error: "not found" });
  if (!adminTokenMatches(adminToken, req.headers.authorization)) {
    return respond(
      res,
      401,
      {
        error: "unauthorized",
        message: "The admin routes need the admin token: Authorization: Bearer TOKEN",
      },
      { "www-authenticate": 'Bearer realm="mcp-bridge-admin"' },
    );
  }
  const method = path === "/status" ? "GET" : "POST";
  if (req.method !== method) {
    return respond(
      res,
      405,
      { error: "method not allowed", message: `Use ${method} ${path}` },
      { allow: method },
    );
  }
  if (path === "/status") return respond(res, 200, upstreamStatus(bridge, undefined));
  if (path === "/reload") {
    try {
      return respond(res, 200, await bridge.reload());
    } catch (error) {
      return respond(res, 500, { error: "reload failed", message: errorText(error) });
    }
  }
  const server = decodedName(RESTART.exec(path)?.[1] ?? "");
  if (server === undefined || !bridge.server(server)) {
    return respond(res, 404, {
      error: "unknown server",
      message: `No upstream server named ${JSON.stringify(server)}: see GET /status for the names`,
    });
  }
  try {
    await bridge.restart(server);
    return respond(
      res,
      200,
      upstreamStatus(bridge, undefined).servers.find((s) => s.name === server),
    );
  } catch (error) {
    return respond(res, 502, {
      error: "restart failed",
      message: errorText(error),
      status: upstreamStatus(bridge, undefined).servers.find((s) => s.name === server),
    });
  }
}
