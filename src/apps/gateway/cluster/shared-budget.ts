import type { SharedBudget } from "../admission/client-limits.js";
import type { ClusterStore } from "./cluster-store.js";

/**
 * The per-minute budgets of the cluster store. A client is its credential's identity, or its
 * session, which every replica names alike; an anonymous connection exists on one replica only, so
 * its budget is that replica's (two replicas' "connection 1" are different clients).
 */
export function sharedBudget(store: ClusterStore, replicaId: string): SharedBudget {
  const keyOf = (client: string) =>
    client.startsWith("anonymous connection") ? `${replicaId} ${client}` : client;
  return {
    spend: (client, perMinute) => store.spendCall(keyOf(client), perMinute),
    refund: (client, perMinute) => store.refundCall(keyOf(client), perMinute),
  };
}
