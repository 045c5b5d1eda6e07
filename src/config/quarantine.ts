import { basename, dirname, join, resolve } from "node:path";
import { withFileLockSync } from "../util/file-lock.js";
import { readPrivateFile, writePrivateFile } from "../util/private-file.js";
import { ensurePrivateDir } from "../util/private-path.js";
import { definitionHash } from "./definition-hash.js";
import type { Locations } from "./locations.js";
import type { ProjectServerRequest } from "./model.js";

/**
 * The quarantine of servers nobody approved. A server that appears in another host's config file
 * (read through `imports`) is held, listed with no tools and never started, until the user approves
 * it with `mcp-bridge quarantine approve`: an installer or a package's install script adding an entry
 * to `~/.claude.json` or Cursor's file must not make mcp-bridge start it. An approval is kept per file
 * and per definition digest (name and raw entry, before `${VAR}` expansion), so a changed definition
 * is held again. `quarantine: "all"` also holds the servers of a main config file mcp-bridge does not
 * own (a host's file found in the search order, such as VS Code's `mcp.json`); `"off"` holds nothing.
 * The user's own config (mcp-bridge's `mcp.json`/`mcp.toml`, a file named with `--config` or
 * `MCP_BRIDGE_CONFIG`, servers given in code) is the user's approval, and so is `mcp-bridge add`.
 */

export type QuarantineMode = "imports" | "all" | "off";
export const QUARANTINE_MODES = ["imports", "all", "off"] as const;

/** `$XDG_CONFIG_HOME/mcp-bridge/approved-servers.json` (0600): the approvals. */
export function quarantineFile(where: Pick<Locations, "env" | "home">): string {
  const { env, home } = where;
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "mcp-bridge", "approved-servers.json");
}

interface ApprovalsShape {
  readonly version: 1;
  /** Absolute config file path -> digests of the approved definitions. */
  readonly approvals: Record<string, string[]>;
}

export class ServerApprovals {
  readonly file: string;

  constructor(file: string) {
    this.file = file;
  }

  #read(): ApprovalsShape {
    const text = readPrivateFile(this.file);
    try {
      const data = text === undefined ? undefined : (JSON.parse(text) as Partial<ApprovalsShape>);
      if (data?.approvals && typeof data.approvals === "object")
        return { version: 1, approvals: data.approvals };
    } catch {
      // Unreadable: nothing is approved (held stays held).
    }
    return { version: 1, approvals: {} };
  }

  isApproved(request: ProjectServerRequest): boolean {
    const approved = this.#read().approvals[request.file];
    return Array.isArray(approved) && approved.includes(definitionHash(request));
  }

  approve(requests: readonly ProjectServerRequest[]): void {
    if (requests.length === 0) return;
    ensurePrivateDir(dirname(this.file), { what: "server approvals folder" });
    // Read-modify-write under the file's lock, so two approvals at once both land.
    withFileLockSync(this.file, () => {
      const approvals = { ...this.#read().approvals };
      for (const request of requests) {
        const hash = definitionHash(request);
        const current = approvals[request.file] ?? [];
        if (!current.includes(hash)) approvals[request.file] = [...current, hash];
      }
      writePrivateFile(
        this.file,
        `${JSON.stringify({ version: 1, approvals }, null, 2)}\n`,
        "server approvals",
      );
    });
  }
}

/** Says whether a server entry of another host's file is held (true) rather than loaded. */
export type HoldServer = (request: ProjectServerRequest) => boolean;

/**
 * The hold of the imported servers for `mode`, reading `approvals` (default: the user's file);
 * `onHeld` hears each server held. Undefined when nothing is held.
 */
export function importHold(
  mode: QuarantineMode,
  where: Pick<Locations, "env" | "home">,
  onHeld?: (request: ProjectServerRequest) => void,
): HoldServer | undefined {
  if (mode === "off") return undefined;
  const approvals = new ServerApprovals(quarantineFile(where));
  return (request) => {
    if (approvals.isApproved(request)) return false;
    onHeld?.(request);
    return true;
  };
}

/**
 * Whether mcp-bridge owns a main config file: its own names (`mcp.json`, `mcp.toml`) in the working
 * folder or in its config folder, or a file the user named. Other hosts' files (`.mcp.json`,
 * `.vscode/mcp.json`, VS Code's user `mcp.json`) are not.
 */
export function ownConfigFile(
  file: string,
  named: boolean,
  where: Pick<Locations, "env" | "home" | "cwd">,
): boolean {
  if (named) return true;
  const name = basename(file);
  if (name !== "mcp.json" && name !== "mcp.toml") return false;
  const folder = resolve(dirname(file));
  const configHome = where.env.XDG_CONFIG_HOME || join(where.home, ".config");
  return folder === resolve(where.cwd) || folder === resolve(configHome, "mcp-bridge");
}
