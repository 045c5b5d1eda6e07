import type { AuthInfo } from "@modelcontextprotocol/server";
import type { SessionRecord } from "./cluster-store.js";

/** Where a request for a 2025-11-25 session is served: here, or at its owner replica's URL. */
export type Placement =
  | { readonly kind: "here" }
  | { readonly kind: "peer"; readonly url: string; readonly record: SessionRecord };

/** Where the cluster's 2025-11-25 sessions live (see session-ownership.ts). */
export interface SessionPlacement {
  /**
   * Where session `id`, named by a request of `identity`, is served. `here` also covers a session
   * this replica holds, one nobody holds (the local path answers 404) and another credential's
   * (answered 404 here exactly like one that does not exist); a session whose owner is gone is
   * rebuilt here first. `fromPeer`: the request was forwarded, so it is never sent on again.
   */
  locate(id: string, identity: string, auth: AuthInfo | undefined, fromPeer: boolean): Promise<Placement>;
  /** Continues session `id` here (its owner could not be reached). */
  takeOver(id: string, record: SessionRecord, auth: AuthInfo | undefined): Promise<void>;
}
