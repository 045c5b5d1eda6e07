import { createHash } from "node:crypto";
import type { ProjectServerRequest } from "./model.js";

/**
 * The fingerprint of one server entry as written (its name and raw definition, before any `${VAR}`
 * expansion): what an approval is recorded against, so a changed definition must be approved again.
 * Shared by project-file consent (trust.ts) and the quarantine of imported servers (quarantine.ts).
 */

/** JSON with object keys sorted, so the hash names the definition, not its formatting. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function definitionHash(request: Pick<ProjectServerRequest, "name" | "definition">): string {
  return createHash("sha256")
    .update(`${request.name}\0${canonical(request.definition)}`)
    .digest("hex");
}
