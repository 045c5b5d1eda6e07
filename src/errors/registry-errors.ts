/**
 * Failures of installing from an MCP Registry (`search`, `add NAME`, `update`) and of the checks on
 * a server installed from one: its package's recorded integrity, the malware advisories, and the
 * managed policy's allowed registries.
 */
import { ConfigError, ErrorCode, McpBridgeError } from "./error-classes.js";

export const registryUnreachable = ({ url, reason }: { url: string; reason: string }) =>
  new McpBridgeError(
    ErrorCode.RegistryFailed,
    `The registry request ${url} failed: ${reason}. Check the address (--registry or the \`registry\` setting) and the network.`,
  );

export const registryAnswerInvalid = ({ url, problem }: { url: string; problem: string }) =>
  new McpBridgeError(
    ErrorCode.RegistryFailed,
    `The registry's answer to ${url} is not a usable server entry (${problem}); nothing was written.`,
  );

export const registryVersionMissing = (fields: {
  name: string;
  version: string | undefined;
  registries: readonly string[];
}) =>
  new McpBridgeError(
    ErrorCode.RegistryFailed,
    `No registry has ${fields.name}${fields.version ? `@${fields.version}` : ""} (asked: ${fields.registries.join(", ")}). Run \`mcp-bridge search\` to find the exact name.`,
  );

/** The entry cannot be installed as given: `problem` says which part of it and why. */
export const registryEntryUnsafe = ({ name, problem }: { name: string; problem: string }) =>
  new McpBridgeError(
    ErrorCode.RegistryFailed,
    `The registry entry ${name} was refused: ${problem}. Nothing was written; report it to the registry.`,
  );

export const registryNoPackageFor = ({
  name,
  offered,
  hint,
}: {
  name: string;
  offered: string;
  hint: string;
}) =>
  new McpBridgeError(
    ErrorCode.RegistryFailed,
    `No way to run ${name} on this machine: it offers ${offered || "nothing"}. ${hint}`,
  );

export const registryValueMissing = ({ name, variable }: { name: string; variable: string }) =>
  new McpBridgeError(
    ErrorCode.RegistryFailed,
    `${name} needs a value for ${variable}, which has no default and cannot be asked for here. Give it with --var ${variable}=VALUE.`,
  );

export const registryNeedsConfirmation = ({ name }: { name: string }) =>
  new McpBridgeError(
    ErrorCode.RegistryFailed,
    `Adding ${name} needs a confirmation and there is no terminal to ask: review the entry with --dry-run, then add --yes.`,
  );

/** Before a start: the package fetched is not the one recorded when the server was added. */
export const packageIntegrityMismatch = (fields: {
  server: string;
  pkg: string;
  recorded: string;
  actual: string;
  source: string;
}) =>
  new McpBridgeError(
    ErrorCode.PackageRefused,
    `Server "${fields.server}" was not started: the package ${fields.pkg} from ${fields.source} has integrity ${fields.actual}, but ${fields.recorded} was recorded when it was added. The registry now serves different content for that exact version; check with its publisher, then \`mcp-bridge update ${fields.server}\` or remove it.`,
    { server: fields.server },
  );

export const packageFetchFailed = ({
  server,
  pkg,
  reason,
}: {
  server: string;
  pkg: string;
  reason: string;
}) =>
  new McpBridgeError(
    ErrorCode.PackageRefused,
    `Server "${server}" was not started: its package ${pkg} could not be fetched to check its recorded integrity (${reason}).`,
    { server },
  );

/** A package named by a malware advisory: refused at install and before every start. */
export const packageMalicious = (fields: {
  server: string;
  pkg: string;
  advisory: string;
  summary: string;
}) =>
  new McpBridgeError(
    ErrorCode.PackageRefused,
    `Server "${fields.server}" was refused: its package ${fields.pkg} is named by the malware advisory ${fields.advisory}${fields.summary ? ` (${fields.summary})` : ""}. Remove it with \`mcp-bridge remove ${fields.server}\`.`,
    { server: fields.server },
  );

export const advisoriesUnreadable = ({ path, reason }: { path: string; reason: string }) =>
  new ConfigError(
    ErrorCode.ConfigInvalid,
    `The advisories at ${path} cannot be read (${reason}); fix the \`advisories\` setting or refresh them with \`mcp-bridge advisories refresh\`.`,
  );

/** The managed policy requires servers from listed registries, and this one is not. */
export const registryNotAllowed = (fields: { server: string; origin: string; allowed: string }) =>
  new ConfigError(
    ErrorCode.ConfigInvalid,
    `Server "${fields.server}" is refused by the managed policy: it ${fields.origin}, and servers must come from ${fields.allowed}. Ask your administrator, or add it from an allowed registry.`,
    { server: fields.server },
  );
