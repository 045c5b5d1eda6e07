import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { ReplicaAddress } from "../identity/sealed-state.js";
import { type HttpAnswer, httpAnswers } from "../wire-errors.js";
import { forwardToPeer } from "./forward-to-peer.js";
import { claimsPeer, verifyPeerRequest } from "./peer-signature.js";
import { readBody } from "./read-body.js";
import type { Replica } from "./replica.js";
import type { SessionPlacement } from "./session-placement.js";

/** How `/mcp` serves a request here: its body, when the cluster layer had to read it first. */
export interface ServeHere {
  readonly parsedBody: unknown;
}

export interface ClusterEntryOptions {
  readonly replica: () => Replica & { readonly advertiseUrl: string };
  readonly maxBodyBytes: number;
  /** Where 2025-11-25 sessions live across the replicas; undefined without a store. */
  readonly placement: SessionPlacement | undefined;
  /** Host names a loopback gateway answers to (undefined: any): checked before forwarding. */
  readonly allowedHosts: readonly string[] | undefined;
  readonly answer: (res: ServerResponse, answer: HttpAnswer) => void;
  /** The replica holding the parked call a retry's `requestState` continues (see input-rounds.ts). */
  readonly roundOwner?: (body: unknown) => ReplicaAddress | undefined;
}

/**
 * The cluster's door to `/mcp`, after auth and before the request is served: a request forwarded by
 * another replica has its signature checked (a forged one is refused); a request naming a 2025-11-25
 * session that lives on another replica is forwarded there, or the session is continued here when
 * its owner is gone (see session-placement.ts). Returns how to serve the request here, or undefined
 * once it was answered.
 */
export function clusterEntry(options: ClusterEntryOptions) {
  return {
    async admit(
      req: IncomingMessage & { auth?: AuthInfo },
      res: ServerResponse,
      identity: string,
    ): Promise<ServeHere | undefined> {
      const method = req.method ?? "GET";
      const path = req.url ?? "/mcp";
      let body: Buffer | undefined;
      const read = async () => {
        const read = await readBody(req, options.maxBodyBytes);
        if (read === "too-large") {
          options.answer(res, httpAnswers.tooLarge(options.maxBodyBytes));
          return false;
        }
        body = read;
        return true;
      };
      let fromPeer = false;
      if (claimsPeer(req.headers)) {
        if (!(await read())) return undefined;
        const check = verifyPeerRequest(options.replica().secret, {
          method,
          path,
          headers: req.headers,
          body,
        });
        if (!check.ok) {
          options.answer(res, httpAnswers.peerRefused());
          return undefined;
        }
        fromPeer = true;
      }
      const session = req.headers["mcp-session-id"];
      const placement = options.placement;
      if (placement && typeof session === "string" && hostAllowed(req, options.allowedHosts)) {
        const where = await placement.locate(session, identity, req.auth, fromPeer);
        if (where.kind === "peer") {
          const replica = options.replica();
          if (replica.secret) {
            if (body === undefined && !(await read())) return undefined;
            const outcome = await forwardToPeer(
              where.url,
              { method, path, headers: req.headers, body: body?.byteLength ? body : undefined },
              res,
              { replicaId: replica.id, secret: replica.secret },
            );
            if (outcome.answered) return undefined;
          }
          // Its owner is unreachable (or this replica cannot forward): the session continues here.
          await placement.takeOver(session, where.record, req.auth);
        }
      }
      // A 2026-07-28 retry of a call parked on another replica goes there (never again from a peer).
      // Only a 2026-07-28 tools/call can carry a requestState, and that era names its method in a
      // header (the SDK refuses the request without it): every other request keeps its body unread
      // here, so the HTTP fast path still takes it.
      const replica = options.replica();
      const parkedElsewhere =
        options.roundOwner &&
        replica.secret &&
        !fromPeer &&
        method === "POST" &&
        req.headers["mcp-method"] === "tools/call";
      if (parkedElsewhere && body === undefined && !(await read())) return undefined;
      if (body === undefined || body.byteLength === 0) return { parsedBody: undefined };
      let parsedBody: unknown;
      try {
        parsedBody = JSON.parse(body.toString("utf8"));
      } catch {
        options.answer(res, httpAnswers.notJson());
        return undefined;
      }
      const owner = parkedElsewhere ? options.roundOwner?.(parsedBody) : undefined;
      if (owner && replica.secret && owner.id !== replica.id) {
        const forwarded = { method, path, headers: req.headers, body };
        const outcome = await forwardToPeer(owner.url, forwarded, res, {
          replicaId: replica.id,
          secret: replica.secret,
        });
        // Its owner is gone: the call went with it, and this replica answers the token as unknown.
        if (outcome.answered) return undefined;
      }
      return { parsedBody };
    },
  };
}

/** A loopback gateway forwards only what it would serve itself (no DNS rebinding through a peer). */
function hostAllowed(req: IncomingMessage, allowed: readonly string[] | undefined): boolean {
  if (!allowed) return true;
  const host = req.headers.host;
  if (host === undefined) return false;
  const name = URL.parse(`http://${host}`)?.hostname;
  return name !== undefined && (allowed.includes(name) || allowed.includes(host));
}
