/**
 * Errors: one base class with a stable `code` (error-classes.ts) and one factory per situation, grouped by
 * domain. A throw site picks the factory and passes the facts: `throw serverNotFound({ server,
 * configured })`; it never writes wording, so the same failure reads the same wherever it is raised.
 */
export * from "./codemode-errors.js";
export * from "./config-errors.js";
export * from "./connection-errors.js";
export * from "./error-classes.js";
export { errorMessages } from "./error-messages.js";
export * from "./feature-errors.js";
export * from "./file-errors.js";
export * from "./module-errors.js";
export * from "./pins-errors.js";
export * from "./policy-errors.js";
export * from "./request-errors.js";
export * from "./rest-errors.js";
export * from "./sampling-errors.js";
export * from "./sandbox-errors.js";
export * from "./server-errors.js";
export * from "./skill-errors.js";
export * from "./task-errors.js";
export * from "./telemetry-errors.js";
export * from "./tool-errors.js";
