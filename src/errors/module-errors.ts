/** Parts of mcp-bridge loaded on first use rather than at import time. */
import { ErrorCode, McpBridgeError } from "./error-classes.js";

/** `part` names what was being loaded ("the bridge runtime"), `detail` why the import failed. */
export function moduleLoadFailed(fields: { part: string; detail: string; cause?: unknown }): McpBridgeError {
  const { part, detail, cause } = fields;
  return new McpBridgeError(
    ErrorCode.ModuleLoadFailed,
    `Could not load ${part} of mcp-bridge (${detail}). The installation is incomplete or broken: reinstall mcp-bridge (npm install mcp-bridge), or rebuild it in a checkout (npm run build).`,
    { cause },
  );
}

/**
 * An optional peer dependency a feature needs is not installed (or fails to load): `pkg` names the
 * package to install, `feature` what needs it ("token limits", "the Redis cluster store").
 */
export function optionalModuleMissing(fields: {
  feature: string;
  pkg: string;
  detail: string;
  cause?: unknown;
}): McpBridgeError {
  const { feature, pkg, detail, cause } = fields;
  return new McpBridgeError(
    ErrorCode.ModuleLoadFailed,
    `Could not load ${pkg}, which ${feature} needs (${detail}). It is an optional dependency of mcp-bridge: install it next to mcp-bridge (npm install ${pkg}), or do without ${feature}.`,
    { cause },
  );
}

/** A subpath of mcp-bridge that needs an optional peer dependency (`ai`) the host has not installed. */
export function peerModuleMissing(fields: {
  part: string;
  peer: string;
  detail: string;
  cause?: unknown;
}): McpBridgeError {
  const { part, peer, detail, cause } = fields;
  return new McpBridgeError(
    ErrorCode.ModuleLoadFailed,
    `Could not load ${part}: it needs the package "${peer}", an optional peer dependency of mcp-bridge, which could not be loaded (${detail}). Install it next to mcp-bridge: npm install ${peer}.`,
    { cause },
  );
}
