/** Telemetry: the Prometheus endpoint could not be set up. */
import { ErrorCode, McpBridgeError } from "./error-classes.js";

/** `packages` is the npm install line; `detail` why the import failed. */
export function metricsPackagesMissing(fields: {
  packages: string;
  detail: string;
  cause?: unknown;
}): McpBridgeError {
  const { packages, detail, cause } = fields;
  return new McpBridgeError(
    ErrorCode.Usage,
    `Prometheus metrics need the OpenTelemetry packages, which are not installed (${detail}). Install them with: npm install ${packages}`,
    { cause },
  );
}

export function metricsListenFailed(fields: {
  host: string;
  port: number;
  detail: string;
  cause?: unknown;
}): McpBridgeError {
  const { host, port, detail, cause } = fields;
  return new McpBridgeError(
    ErrorCode.Usage,
    `Could not serve metrics on ${host}:${port}: ${detail}. Choose another address or port.`,
    { cause },
  );
}
