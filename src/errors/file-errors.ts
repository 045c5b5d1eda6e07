/** Files mcp-bridge writes: a lock held too long, a path that is not safe to use. */
import { ErrorCode, McpBridgeError } from "./error-classes.js";

/** `holder` says who holds the lock ("process 123 (mcp-bridge daemon)", "another process"). */
export function lockTimeout(fields: { path: string; timeoutMs: number; holder: string }): McpBridgeError {
  const { path, timeoutMs, holder } = fields;
  return new McpBridgeError(
    ErrorCode.LockTimeout,
    `Could not lock ${path} within ${timeoutMs} ms: ${holder} holds it. Retry when it is done; if no mcp-bridge is running, delete ${path}.lock.`,
  );
}

/** `what` names the use ("daemon folder"), `problem` what is wrong ("it is a symbolic link"). */
export function unsafePath(fields: { path: string; what: string; problem: string }): McpBridgeError {
  const { path, what, problem } = fields;
  return new McpBridgeError(
    ErrorCode.UnsafePath,
    `Refusing to use ${path} for the ${what}: ${problem}. Point mcp-bridge at a folder you own that others cannot write, or fix the path's owner and permissions.`,
  );
}

/** The OAuth token file is a link or not a regular file: tokens are never written through it. */
export function tokenFileUnsafe(fields: { file: string }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.Auth,
    `The OAuth token file ${fields.file} is a symbolic link or not a regular file; mcp-bridge refuses to write tokens through it. Delete it and log in again (\`mcp-bridge auth login\`).`,
  );
}

/** A path that must be a regular file and is not (read as EISDIR, as a folder would be). */
export const notAFile = () => Object.assign(new Error("not a file"), { code: "EISDIR" });
