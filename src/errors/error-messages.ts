/**
 * Compatibility: the message builders of 0.x, kept for code that still composes an error by hand.
 * Each returns the message of the factory for the same situation; new code throws the factory's
 * error instead (`throw serverNotFound({ server, configured })`).
 * @deprecated Use the factories exported beside it.
 */
import * as files from "./file-errors.js";
import * as requests from "./request-errors.js";
import * as sampling from "./sampling-errors.js";
import * as servers from "./server-errors.js";
import * as skills from "./skill-errors.js";
import type { PendingServer } from "./tool-errors.js";
import * as tools from "./tool-errors.js";

function near(hint: string): string | undefined {
  return /did you mean "(.*)"\?$/.exec(hint)?.[1];
}

function target(what: string): { method: string; item?: string } {
  const quoted = /^(\S+) "(.*)"$/.exec(what);
  return quoted ? { method: quoted[1] as string, item: quoted[2] as string } : { method: what };
}

export const errorMessages = {
  serverNotFound: (server: string, configured: readonly string[]) =>
    servers.serverNotFound({ server, configured }).message,
  restartUnknown: (server: string, configured: readonly string[], hint: string) =>
    servers.restartUnknown({ server, configured, near: near(hint) }).message,
  restartDisabled: (server: string) => servers.restartDisabled({ server }).message,
  restartNotSelected: (server: string) => servers.restartNotSelected({ server }).message,
  restartedDuringCall: (server: string, tool: string) =>
    servers.restartedDuringCall({ server, tool }).message,
  serverUnavailable: (server: string, state: string, reason?: string, tool?: string) =>
    tool === undefined
      ? servers.serverUnavailable({ server, state, reason }).message
      : servers.toolUnavailable({ server, tool, state, reason }).message,
  ownerUnavailable: (server: string, name: string, reason?: string) =>
    servers.ownerUnavailable({ server, name, reason }).message,
  requiredServers: (down: readonly { name: string; reason: string }[]) =>
    servers.requiredServers({ down }).message,
  toolNotFound: (server: string, tool: string) => tools.toolNotFound({ server, tool }).message,
  unknownTool: (name: string, registered: number, pending: readonly PendingServer[]) =>
    tools.unknownTool({ name, registered, pending }).message,
  authSetup: (server: string, reason: string) => servers.authSetup({ server, reason }).message,
  toolNotOffered: (name: string, server: string) =>
    tools.toolNotOffered({ name, server, tool: name }).message,
  toolRenamed: (name: string, server: string, tool: string) =>
    tools.toolRenamed({ name, server, tool }).message,
  catalogUnknownTool: (name: string, searchTool: string) =>
    tools.searchUnknownTool({ name, searchTool }).message,
  invalidSearchPattern: (pattern: string, reason: string) =>
    tools.invalidSearchPattern({ pattern, reason }).message,
  samplingNoModel: (server: string) => sampling.samplingNoModel({ server }).message,
  samplingUnreachable: (server: string, baseUrl: string, detail: string) =>
    sampling.samplingUnreachable({ server, baseUrl, detail }).message,
  samplingHttp: (server: string, status: number, body: string) =>
    sampling.samplingHttp({ server, status, body }).message,
  samplingNotJson: (server: string) => sampling.samplingNotJson({ server }).message,
  samplingTooLarge: (maxBytes: number) => sampling.samplingTooLarge({ maxBytes }).message,
  samplingNoMessage: (server: string) => sampling.samplingNoMessage({ server }).message,
  skillNotFound: (name: string, server: string | undefined, listed: readonly string[]) =>
    skills.skillNotFound({ name, server, listed }).message,
  skillAmbiguous: (name: string, servers: readonly string[]) =>
    skills.skillAmbiguous({ name, servers }).message,
  skillVerification: (server: string, skill: string, detail: string) =>
    skills.skillVerification({ server, skill, detail, uri: "", reason: "unlisted" }).message,
  ambiguousToolName: (name: string, candidates: readonly string[]) =>
    tools.ambiguousToolName({ name, candidates }).message,
  noConnectedTool: (name: string, near?: string) => tools.noConnectedTool({ name, near }).message,
  missingToolName: () => tools.missingToolName().message,
  unreadableArguments: (tool: string, problem: string) =>
    tools.unreadableArguments({ tool, problem }).message,
  invalidArguments: (server: string, tool: string, issues: readonly { path: string; message: string }[]) =>
    tools.invalidArguments({ server, tool, name: tool, issues: [...issues] }).message,
  toolReportedError: (server: string, tool: string, text: string) =>
    tools.toolReportedError({ server, tool, text }).message,
  toolRejected: (server: string, tool: string, detail: string, rpcCode: number) =>
    tools.toolRejected({ server, tool, detail, rpcCode }).message,
  toolFailed: (server: string, tool: string, detail: string) =>
    tools.toolFailed({ server, tool, detail }).message,
  toolTimeout: (server: string, tool: string, timeoutMs: number, detail = "") =>
    tools.toolTimeout({ server, tool, timeoutMs, detail }).message,
  aborted: (server: string, tool?: string) => tools.aborted({ server, tool }).message,
  modelRequestCancelled: () => sampling.modelRequestCancelled().message,
  turnCancelled: () => sampling.turnCancelled().message,
  bridgeClosed: () => servers.bridgeClosed().message,
  lockTimeout: (path: string, timeoutMs: number, holder: string) =>
    files.lockTimeout({ path, timeoutMs, holder }).message,
  unsafePath: (path: string, what: string, problem: string) =>
    files.unsafePath({ path, what, problem }).message,
  serverClosed: (server: string) => servers.serverClosed({ server }).message,
  serverDisabled: (server: string, tool?: string) => servers.serverDisabled({ server, tool }).message,
  requestNoSession: (server: string, what: string) =>
    requests.requestNoSession({ server, ...target(what) }).message,
  requestAborted: (server: string, what: string) =>
    requests.requestAborted({ server, ...target(what) }).message,
  requestTimeout: (server: string, what: string, timeoutMs: number) =>
    requests.requestTimeout({ server, ...target(what), timeoutMs }).message,
  requestServerStopped: (server: string, what: string) =>
    requests.requestServerStopped({ server, ...target(what) }).message,
  requestRejected: (server: string, what: string, detail: string, rpcCode: number) =>
    requests.requestRejected({ server, ...target(what), detail, rpcCode }).message,
  requestFailed: (server: string, what: string, detail: string) =>
    requests.requestFailed({ server, ...target(what), detail }).message,
  promptNotFound: (name: string) => requests.promptNotFound({ name }).message,
  resourceAmbiguous: (uri: string, servers_: readonly string[]) =>
    requests.resourceAmbiguous({ uri, servers: servers_ }).message,
  resourceNotFound: (uri: string, searched: readonly string[]) =>
    requests.resourceNotFound({ uri, searched }).message,
} as const;
