/**
 * Errors: one base class with a stable `code` (error.ts) and one factory per situation, grouped by
 * domain. A throw site picks the factory and passes the facts: `throw serverNotFound({ server,
 * configured })`; it never writes wording, so the same failure reads the same wherever it is raised.
 */
export * from "./config.js";
export * from "./connections.js";
export * from "./error.js";
export * from "./features.js";
export * from "./files.js";
export { errorMessages } from "./messages.js";
export * from "./requests.js";
export * from "./rest.js";
export * from "./sampling.js";
export * from "./servers.js";
export * from "./skills.js";
export * from "./tasks.js";
export * from "./telemetry.js";
export * from "./tools.js";
