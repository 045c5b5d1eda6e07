/**
 * Errors: one base class with a stable `code` (error-classes.ts) and one factory per situation, grouped
 * by domain. A throw site picks the factory and passes the facts: `throw serverNotFound({ server,
 * configured })`; it never writes wording, so the same failure reads the same wherever it is raised
 * (test/errors.test.ts finds any error built with its wording in place).
 *
 * Factories live in three homes, each for a reason:
 * - here, `src/errors/`: every McpBridgeError the library, the daemon and the apps raise, and the plain
 *   Errors and message texts the SDK's interfaces take (transports, auth providers, ProtocolError
 *   wording). This layer imports nothing but itself, so any layer may use it; files that only one app
 *   needs (cli-, daemon-, gateway-, model-errors.ts) are imported directly, not re-exported here.
 * - `apps/gateway/wire-errors.ts`: the gateway's answers to a peer on the wire (JSON-RPC errors as the
 *   SDK's ProtocolError, HTTP statuses and bodies). They are data for a client, not McpBridgeErrors,
 *   and need the SDK server package, which this layer must not load.
 * - `apps/cli/usage-errors.ts`: the CLI's usage errors (code USAGE, exit 2), worded with the command
 *   line's own terms (flags, commands, "did you mean"); only the CLI raises them, and `--help` loads
 *   them without the rest of the errors.
 */
export * from "./codemode-errors.js";
export * from "./config-errors.js";
export * from "./connection-errors.js";
export * from "./error-classes.js";
export * from "./feature-errors.js";
export * from "./file-errors.js";
export * from "./guardrail-errors.js";
export * from "./module-errors.js";
export * from "./pins-errors.js";
export * from "./policy-errors.js";
export * from "./registry-errors.js";
export * from "./request-errors.js";
export * from "./rest-errors.js";
export * from "./sampling-errors.js";
export * from "./sandbox-errors.js";
export * from "./secret-errors.js";
export * from "./server-errors.js";
export * from "./skill-errors.js";
export * from "./task-errors.js";
export * from "./telemetry-errors.js";
export * from "./tool-errors.js";
