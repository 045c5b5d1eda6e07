import type { ToolEntry } from "../../../bridge/api.js";

/**
 * Whether a tool call the model made may run at once or needs the person's yes. The tool's
 * annotations are its server's own claims, so the server's `trust` setting decides first: `true`
 * runs its tools without asking, `false` asks before every call. Unset, a tool that declares
 * `readOnlyHint` (and not `destructiveHint`) runs, any other tool asks. Pure.
 */
export type Approval =
  | { readonly run: true }
  | { readonly run: false; readonly reason: "destructive" | "may-change" | "untrusted" };

export function approvalFor(entry: Pick<ToolEntry, "annotations">, trust: boolean | undefined): Approval {
  if (trust === true) return { run: true };
  const destructive = entry.annotations?.destructiveHint === true;
  const readOnly = entry.annotations?.readOnlyHint === true && !destructive;
  if (trust === false)
    return { run: false, reason: destructive ? "destructive" : readOnly ? "untrusted" : "may-change" };
  if (readOnly) return { run: true };
  return { run: false, reason: destructive ? "destructive" : "may-change" };
}

/** The reason, as the end of the question "Run server › tool {...}? It ...". */
export function approvalReason(reason: "destructive" | "may-change" | "untrusted"): string {
  switch (reason) {
    case "destructive":
      return "may delete or overwrite";
    case "may-change":
      return "may change things";
    case "untrusted":
      return "says it only reads, and its server has trust = false";
  }
}
