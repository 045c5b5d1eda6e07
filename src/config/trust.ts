import { dirname, join } from "node:path";
import { withFileLockSync } from "../util/file-lock.js";
import { readPrivateFile, writePrivateFile } from "../util/private-file.js";
import { ensurePrivateDir } from "../util/private-path.js";
import { isSecretName, redactText } from "../util/redact.js";
import { definitionHash } from "./definition-hash.js";
import { type LoadConfigOptions, loadConfig } from "./load.js";
import { type LocationOptions, resolveLocations } from "./locations.js";
import type { AdmitProjectServer, ProjectServerRequest } from "./model.js";

/**
 * Consent for servers defined by project-level files. An approval is kept per file and per exact
 * definition (a hash of the raw entry as written, before any `${VAR}` expansion), so a definition that
 * changes after approval has to be approved again.
 */

/** `$XDG_CONFIG_HOME/mcp-bridge/trusted-projects.json` (0600): the approvals. */
export function defaultTrustFile(options: LocationOptions = {}): string {
  const { env, home } = resolveLocations(options);
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "mcp-bridge", "trusted-projects.json");
}

export { definitionHash };

interface TrustFileShape {
  readonly version: 1;
  /** Absolute config file path -> hashes of the approved definitions. */
  readonly approvals: Record<string, string[]>;
}

export class TrustStore {
  constructor(readonly file: string) {}

  #read(): TrustFileShape {
    const text = readPrivateFile(this.file);
    try {
      const data = text === undefined ? undefined : (JSON.parse(text) as Partial<TrustFileShape>);
      if (data?.approvals && typeof data.approvals === "object")
        return { version: 1, approvals: data.approvals };
    } catch {
      // unreadable: nothing is approved
    }
    return { version: 1, approvals: {} };
  }

  isApproved(request: ProjectServerRequest): boolean {
    const approved = this.#read().approvals[request.file];
    return Array.isArray(approved) && approved.includes(definitionHash(request));
  }

  approve(requests: readonly ProjectServerRequest[]): void {
    if (requests.length === 0) return;
    this.#change((approvals) => {
      for (const request of requests) {
        const hash = definitionHash(request);
        const current = approvals[request.file] ?? [];
        if (!current.includes(hash)) approvals[request.file] = [...current, hash];
      }
    });
  }

  /** Forgets every approval of the given config files. */
  revoke(files: readonly string[]): void {
    this.#change((approvals) => {
      for (const file of files) delete approvals[file];
    });
  }

  /** Read-modify-write under the file's lock, so two `mcp-bridge trust` runs at once both land. */
  #change(edit: (approvals: Record<string, string[]>) => void): void {
    ensurePrivateDir(dirname(this.file), { what: "project approvals folder" });
    withFileLockSync(this.file, () => {
      const approvals = { ...this.#read().approvals };
      edit(approvals);
      const text = `${JSON.stringify({ version: 1, approvals }, null, 2)}\n`;
      writePrivateFile(this.file, text, "project approvals");
    });
  }
}

/** An admit predicate that lets through what the store approved (and records what it refused). */
export function approvedBy(store: TrustStore, refused?: ProjectServerRequest[]): AdmitProjectServer {
  return (request) => {
    if (store.isApproved(request)) return true;
    refused?.push(request);
    return false;
  };
}

/**
 * Trust given for one run (`--trust-project`, MCP_BRIDGE_TRUST_PROJECT): it covers the definitions seen
 * when it was given, pinned by digest, plus what the store approves. A long-lived process (a daemon,
 * autoReload) that reloads after a `git pull` brought a new or changed project server leaves that one
 * out, with the loader's "not approved" warning, instead of starting it without consent.
 */
export function pinnedTo(seen: readonly ProjectServerRequest[], store: TrustStore): AdmitProjectServer {
  const pinned = new Set(seen.map((request) => `${request.file}\0${definitionHash(request)}`));
  return (request) => pinned.has(`${request.file}\0${definitionHash(request)}`) || store.isApproved(request);
}

/**
 * Every server entry of the project-level files that would be loaded from the working directory, as
 * written. Nothing of theirs is expanded: they are only collected.
 */
export async function projectServerRequests(
  options: Omit<LoadConfigOptions, "admitProjectServer">,
): Promise<ProjectServerRequest[]> {
  const found: ProjectServerRequest[] = [];
  await loadConfig({
    ...options,
    admitProjectServer: (request) => {
      found.push(request);
      return false;
    },
  });
  return found;
}

/** The project-level servers not approved yet. */
export async function pendingProjectServers(
  options: Omit<LoadConfigOptions, "admitProjectServer">,
  store: TrustStore,
): Promise<ProjectServerRequest[]> {
  return (await projectServerRequests(options)).filter((request) => !store.isApproved(request));
}

/**
 * What the user approves, from the raw entry: command, args and URL as written (`${VAR}` unexpanded,
 * URL password and secret query values masked), env and header NAMES only (a value may be a literal
 * secret). Server strings reach a terminal only through `clean`.
 */
export function describeRequest(request: ProjectServerRequest, clean: (text: string) => string): string {
  const raw = (request.definition ?? {}) as Record<string, unknown>;
  const lines = [`  ${clean(request.name)} (from ${clean(request.file)})`];
  const show = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));
  if (raw.command !== undefined) {
    const command = Array.isArray(raw.command) ? raw.command.map(show) : [show(raw.command)];
    const args = Array.isArray(raw.args) ? raw.args.map(show) : [];
    lines.push(`    command: ${clean(JSON.stringify([...command, ...args]))}`);
  }
  if (typeof raw.url === "string") lines.push(`    url: ${clean(maskUrlText(raw.url))}`);
  for (const key of ["env", "headers", "http_headers", "env_http_headers"]) {
    const table = raw[key];
    if (table && typeof table === "object" && !Array.isArray(table)) {
      const names = Object.keys(table);
      if (names.length > 0) lines.push(`    ${key} names: ${clean(names.join(", "))}`);
    }
  }
  for (const key of ["env_vars", "inheritEnv", "inherit_env", "cwd", "type", "transport"]) {
    if (raw[key] !== undefined) lines.push(`    ${key}: ${clean(show(raw[key]))}`);
  }
  const secretKeys = Object.keys(raw).filter((key) => isSecretName(key) && key !== "oauth");
  if (secretKeys.length > 0) lines.push(`    also sets: ${clean(secretKeys.join(", "))}`);
  return lines.join("\n");
}

/** The URL as written (`${VAR}` left readable, no re-encoding), with its password and secret query values masked. */
function maskUrlText(url: string): string {
  return redactText(url, []).replace(/([?&])([^=&#]+)=([^&#]*)/g, (whole, separator: string, key: string) =>
    isSecretName(key) ? `${separator}${key}=***` : whole,
  );
}
