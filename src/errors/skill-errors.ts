/** Skills (SEP-2640): a name no server lists, a name several list, a file that fails verification. */
import { ErrorCode, McpBridgeError, SkillVerificationError } from "./error-classes.js";

/** `listed` are the names shown to help (the first 20 are quoted). */
export function skillNotFound(fields: {
  name: string;
  server?: string | undefined;
  listed: readonly string[];
}): McpBridgeError {
  const { name, server, listed } = fields;
  return new McpBridgeError(
    ErrorCode.SkillNotFound,
    `No skill named "${name}"${server === undefined ? " on the connected servers" : ` on server "${server}"`}${
      listed.length > 0 ? ` (listed: ${listed.slice(0, 20).join(", ")})` : " (none lists any skills)"
    }. Call skills() for the list.`,
    { server },
  );
}

export function skillAmbiguous(fields: { name: string; servers: readonly string[] }): McpBridgeError {
  const { name, servers } = fields;
  return new McpBridgeError(
    ErrorCode.SkillNotFound,
    `Skill "${name}" is listed by servers ${servers.map((s) => `"${s}"`).join(", ")}; choose one with --server NAME (CLI) or { server } (library).`,
  );
}

/** A skill file that does not match its server's listing; `detail` says how (redacted). */
export function skillVerification(fields: {
  server: string;
  skill: string;
  uri: string;
  reason: SkillVerificationError["reason"];
  detail: string;
  differences?: readonly string[] | undefined;
  cause?: unknown;
}): SkillVerificationError {
  const { server, skill, uri, reason, detail, differences, cause } = fields;
  return new SkillVerificationError(
    `Skill "${skill}" of server "${server}" was not loaded: ${detail.slice(0, 500)}. The server's file does not match its own listing; do not use it, and tell the server's maintainer.`,
    { server, skill, uri, reason, differences, cause },
  );
}
