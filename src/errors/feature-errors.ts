import { InvalidArgumentsError, type SkillVerificationError } from "./error-classes.js";
import { skillVerification } from "./skill-errors.js";

/** The MCP features' own situations beyond the shared request, resource, prompt and skill factories. */

/** Required prompt arguments the caller did not give; nothing was sent to the server. */
export function promptArgumentsMissing(fields: {
  server: string;
  prompt: string;
  missing: readonly string[];
}): InvalidArgumentsError {
  const { server, prompt, missing } = fields;
  const names = missing.map((name) => `"${name}"`).join(", ");
  return new InvalidArgumentsError(
    `Prompt "${prompt}" (server "${server}") needs the argument${missing.length > 1 ? "s" : ""} ${names}.`,
    { server, issues: missing.map((path) => ({ path, message: "is required" })) },
  );
}

/** A skill whose listing passes the skills extension's limits (files, total bytes): nothing is read. */
export function skillBeyondLimits(fields: {
  server: string;
  skill: string;
  uri: string;
  files: number;
  bytes: number;
  limits: { readonly files: number; readonly bytes: number };
}): SkillVerificationError {
  const { server, skill, uri, files, bytes, limits } = fields;
  return skillVerification({
    server,
    skill,
    uri,
    reason: "size",
    detail: `its listing has ${files} files and ${bytes} bytes, beyond the skills extension's limits (${limits.files} files, ${limits.bytes} bytes)`,
  });
}
