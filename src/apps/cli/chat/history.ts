import { join } from "node:path";
import { readPrivateFile, writePrivateFile } from "../../../util/private-file.js";

/**
 * The chat's input history, kept between sessions in a file only the user can read (0600 in a 0700
 * folder, written to a fresh file created exclusively and renamed into place, never through a
 * symbolic link: see util/private-file.ts). What a person types may hold secrets, so a line that
 * starts with a space is not kept (as in shells), and the file lives in the user's state folder.
 */

export const HISTORY_SIZE = 500;

/** `$XDG_STATE_HOME/mcp-bridge/chat-history` (or `~/.local/state/...`); undefined without a home. */
export function historyFile(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (platform === "win32")
    return env.LOCALAPPDATA ? join(env.LOCALAPPDATA, "mcp-bridge", "chat-history") : undefined;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, "mcp-bridge", "chat-history");
  return env.HOME ? join(env.HOME, ".local", "state", "mcp-bridge", "chat-history") : undefined;
}

/** Newest first, as readline keeps it; empty when the file is absent, unreadable or a link. */
export function loadHistory(file: string | undefined): string[] {
  const text = file ? readPrivateFile(file) : undefined;
  if (!text) return [];
  return text
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => line.replace(/\\(.)/g, (_, char: string) => (char === "n" ? "\n" : char)))
    .reverse()
    .slice(0, HISTORY_SIZE);
}

/** Saves readline's history (newest first). Never throws: history is a convenience. */
export function saveHistory(file: string | undefined, history: readonly string[]): void {
  if (!file) return;
  const kept = history.filter((line) => !line.startsWith(" ")).slice(0, HISTORY_SIZE);
  const text = kept
    .reverse()
    .map((line) => line.replace(/\\/g, "\\\\").replace(/\n/g, "\\n"))
    .join("\n");
  try {
    writePrivateFile(file, text ? `${text}\n` : "", "chat history");
  } catch {
    // A planted link or an unwritable folder: the session goes on without saving.
  }
}
