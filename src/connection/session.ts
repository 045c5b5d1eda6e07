import type { ServerCapabilities, Tool } from "@modelcontextprotocol/client";
import { type Client, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import * as z from "zod";
import type { ServerDefinition } from "../config/model.js";
import { STARTUP_DEADLINE_TEXT } from "../errors/connection-errors.js";
import type { CreatedTransport } from "../transport/create.js";
import { omitUndefined } from "../util/defined.js";
import type { Logger } from "../util/logger.js";
import { safeJsonSchemaValidator } from "../util/schema-engine.js";
import { endlessListing } from "./failures.js";
import { listChangedOptions } from "./list-changed.js";
import type { ServerInfo } from "./server-status.js";
import { SessionClient } from "./session-client.js";

/**
 * Most pages one listing may take. A server whose cursors never end (or take turns) is cut off here
 * rather than followed forever; 500 pages hold any real catalog (tens of thousands of tools).
 */
export const MAX_LIST_PAGES = 500;

/** One live MCP session: the SDK client and the transport under it. */
export interface Session {
  readonly client: Client;
  readonly created: CreatedTransport;
  /** Set before closing a session on purpose, so its close is not taken for a crash. */
  retired: boolean;
  /** Set once the session's transport has closed. */
  dead: boolean;
}

/**
 * One complete tool listing, with the freshness a 2026-07-28 server may give it (`ttlMs`: how long it
 * may be reused; `cacheScope`: whether it may be shared across authorization contexts).
 */
export interface ToolListing {
  readonly tools: readonly Tool[];
  /**
   * What the session that listed the tools declared in its handshake: how its tools may be called
   * (task support) depends on it. Absent for the empty listing of a server that is down.
   */
  readonly capabilities?: ServerCapabilities;
  readonly ttlMs?: number;
  readonly cacheScope?: "public" | "private";
}

export interface OpenedSession {
  readonly session: Session;
  readonly listing: ToolListing;
  readonly protocolVersion: string | undefined;
  readonly serverInfo: ServerInfo | undefined;
  readonly connectMs: number;
}

/** A new SDK client for one connect attempt; `onToolsChanged` runs (debounced) on tools/list_changed. */
export function newSessionClient(options: {
  readonly clientInfo: { readonly name: string; readonly version: string };
  readonly negotiation: ServerDefinition["negotiation"];
  readonly onToolsChanged: () => void;
}): SessionClient {
  const client: SessionClient = new SessionClient(
    { name: options.clientInfo.name, version: options.clientInfo.version },
    {
      // Server schemas are untrusted: the SDK's outputSchema checks run on the RE2-backed engines.
      jsonSchemaValidator: safeJsonSchemaValidator,
      versionNegotiation: { mode: options.negotiation },
      listMaxPages: MAX_LIST_PAGES,
      listChanged: {
        tools: {
          // We list ourselves (see listTools) so that one malformed tool cannot hide all the others.
          autoRefresh: false,
          debounceMs: 50,
          onChanged: options.onToolsChanged,
        },
        ...listChangedOptions(() => client),
      },
    },
  );
  return client;
}

const LENIENT_TOOL_PAGE = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/**
 * The server's tools. The SDK rejects a whole list for one bad entry; then the pages are taken as
 * they are and the registry skips the bad entries one by one, with a warning naming each. Either way
 * a listing stops after MAX_LIST_PAGES pages or at a repeated cursor.
 */
export async function listTools(
  client: Client,
  deps: { readonly name: string; readonly logger: Logger },
  timeoutMs: number,
): Promise<ToolListing> {
  const capabilities = client.getServerCapabilities();
  if (!capabilities?.tools) return { tools: [], capabilities };
  try {
    const result = await client.listTools(undefined, { timeout: timeoutMs });
    return { tools: result.tools, capabilities, ...freshnessOf(result) };
  } catch (error) {
    if (!(SdkError.isInstance(error) && error.code === SdkErrorCode.InvalidResult)) throw error;
  }
  deps.logger.warn(`Server "${deps.name}" sent a malformed tool list; skipping the invalid entries`, {
    server: deps.name,
  });
  const tools: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let freshness: Omit<ToolListing, "tools"> = {};
  for (let page = 1; ; page++) {
    const result = await client.request(
      // omitUndefined: a wire message, where the first page is asked for without params.
      omitUndefined({ method: "tools/list", params: cursor === undefined ? undefined : { cursor } }),
      LENIENT_TOOL_PAGE,
      { timeout: timeoutMs },
    );
    if (page === 1) freshness = freshnessOf(result);
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
    if (seen.has(cursor)) throw endlessListing(deps.name, `repeated the cursor "${cursor.slice(0, 40)}"`);
    if (page >= MAX_LIST_PAGES) throw endlessListing(deps.name, `sent more than ${MAX_LIST_PAGES} pages`);
    seen.add(cursor);
  }
  return { tools: tools as Tool[], capabilities, ...freshness };
}

/** `ttlMs` and `cacheScope` of a list result, when the server sent well-formed ones (page 1 carries them). */
function freshnessOf(result: object): Omit<ToolListing, "tools"> {
  const { ttlMs, cacheScope } = result as { ttlMs?: unknown; cacheScope?: unknown };
  return {
    ttlMs: typeof ttlMs === "number" && Number.isFinite(ttlMs) ? ttlMs : undefined,
    cacheScope: cacheScope === "public" || cacheScope === "private" ? cacheScope : undefined,
  };
}

/**
 * Runs `work` until the deadline or until `stop` aborts, whichever comes first. On either, the
 * caller's cleanup (closing the client and transport, which stops the process) ends what `work` waits on.
 */
export function boundedBy<T>(
  deadline: number,
  stop: AbortSignal,
  onStop: () => Error,
  work: () => Promise<T>,
): Promise<T> {
  if (stop.aborted) return Promise.reject(onStop());
  return new Promise<T>((resolve, reject) => {
    const finish = () => {
      clearTimeout(timer);
      stop.removeEventListener("abort", stopped);
    };
    const stopped = () => {
      finish();
      reject(onStop());
    };
    const timer = setTimeout(
      () => {
        stop.removeEventListener("abort", stopped);
        reject(new SdkError(SdkErrorCode.RequestTimeout, STARTUP_DEADLINE_TEXT));
      },
      Math.max(0, deadline - Date.now()),
    );
    stop.addEventListener("abort", stopped, { once: true });
    work().then(
      (value) => {
        finish();
        resolve(value);
      },
      (error: unknown) => {
        finish();
        reject(error);
      },
    );
  });
}

/** Ends a session the connection no longer uses; its close events are then ignored. */
export async function retireSession(session: Session): Promise<void> {
  session.retired = true;
  await session.client.close().catch(() => {});
  await session.created.transport.close().catch(() => {});
}
