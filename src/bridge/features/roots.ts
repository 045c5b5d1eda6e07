import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Client, Root } from "@modelcontextprotocol/client";

/** A configured root (a folder path, relative to `base`, or a file: URI) as an MCP Root. */
export function toRoot(entry: string, base: string): Root {
  if (/^file:/i.test(entry)) {
    const name = decodeURIComponent(entry.replace(/\/+$/, "").split("/").pop() ?? entry);
    return { uri: entry, name };
  }
  const path = isAbsolute(entry) ? entry : resolve(base, entry);
  const uri = pathToFileURL(path).href;
  return { uri, name: path.split(/[\\/]/).filter(Boolean).pop() ?? path };
}

/**
 * Declares roots (with list_changed) and answers `roots/list` from `current()`, read at each request,
 * so `setRoots` needs only a `notifications/roots/list_changed` to take effect.
 */
export function registerRoots(client: Client, current: () => readonly Root[]): void {
  client.registerCapabilities({ roots: { listChanged: true } });
  client.setRequestHandler("roots/list", () => ({ roots: [...current()] }));
}
