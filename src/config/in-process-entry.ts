import { entryProblem } from "../errors/entry-problems.js";
import type { ConnectServer } from "./model.js";
import { EntryProblem } from "./problem.js";

/** The keys that say how a server is reached otherwise: none may go with `connect`. */
const OTHER_WAYS = ["command", "url", "type", "transport", "sandbox", "limits"] as const;

/**
 * The `connect` function of a server given in code (see `ConnectServer`), or undefined for an entry
 * without one. A config file cannot hold a function, so there `connect` is always refused, with the
 * reason, rather than read as something else.
 */
export function readConnect(raw: Readonly<Record<string, unknown>>): ConnectServer | undefined {
  const connect = raw.connect;
  if (connect === undefined) return undefined;
  if (typeof connect !== "function") {
    throw new EntryProblem("connect", entryProblem.connectNotFunction());
  }
  for (const key of OTHER_WAYS) {
    if (raw[key] !== undefined && raw[key] !== false)
      throw new EntryProblem(key, entryProblem.connectWith(key));
  }
  return connect as ConnectServer;
}
