import type { BridgeSettings } from "../config/model.js";
import { ErrorCode, errorMessages, McpBridgeError, ServerCrashedError } from "../errors/index.js";
import type { ToolRegistry } from "../registry/registry.js";
import type { ToolDefinition } from "../registry/types.js";
import type { ToolResult } from "../results/types.js";
import type { CallOptions } from "./api.js";
import { type CallContext, callOnRecord } from "./call.js";
import { unknownToolError } from "./diagnostics.js";
import type { SerialQueue } from "./reload.js";
import type { ServerRecord } from "./server-record.js";
import type { RestartGates } from "./server-restart.js";
import type { ServerTable } from "./server-table.js";
import { closedError } from "./surface-host.js";
import type { ToolListCache } from "./tool-list-cache.js";

/** What routing a call needs of its bridge; getters, because a reload replaces the registry and settings. */
export interface CallRouterHost {
  readonly registry: () => ToolRegistry;
  readonly settings: () => BridgeSettings;
  readonly closing: () => boolean;
  readonly servers: ServerTable;
  readonly catalogs: ToolListCache;
  readonly restarting: RestartGates;
  readonly reloads: SerialQueue;
}

/** The call failed because its connection went away (not because of the tool, a timeout or the caller). */
function isConnectionLoss(error: unknown): boolean {
  return error instanceof McpBridgeError && error.code === ErrorCode.ServerCrashed;
}

/**
 * Takes a call by exposed name to the server record that must run it: a name not listed yet waits for
 * a reload or a connecting server, a server being restarted is waited for, a tool listed from the
 * catalog cache waits for its server's live list, and a call a reload replaced the server under
 * before it was sent goes to the new connection. Each wait is bounded by the call's timeout and signal.
 */
export class CallRouter {
  readonly #host: CallRouterHost;

  constructor(host: CallRouterHost) {
    this.#host = host;
  }

  async call(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
    context: CallContext,
  ): Promise<ToolResult> {
    const host = this.#host;
    let definition = host.registry().resolve(name) ?? (await this.#resolveLate(name, options));
    const wait = options.timeout ?? host.servers.get(definition.server)?.definition.callTimeoutMs ?? 0;
    const restarting = host.restarting.pass(definition.server, wait, options.signal);
    if (restarting) await restarting;
    let record = host.servers.get(definition.server);
    if (!record) throw this.unknownTool(name, undefined);
    if (host.catalogs.served(record)) {
      ({ definition, record, options } = await this.#awaitLiveTool(name, record, definition, options));
    }
    const started = Date.now();
    const timeout = options.timeout ?? record.definition.callTimeoutMs;
    // A call still waiting for its server when a reload replaced that server was never sent (the
    // replaced connection reports itself closed): it follows the server to each new record, through
    // any number of replacements, within its own timeout.
    for (;;) {
      try {
        return await callOnRecord(record, definition, args, options, context);
      } catch (error) {
        const current = host.servers.get(definition.server);
        const replaced = current !== undefined && current !== record && !host.closing();
        const unsent = error instanceof McpBridgeError && error.code === ErrorCode.BridgeClosed;
        if (replaced && record.restarted && !unsent && isConnectionLoss(error)) {
          throw new ServerCrashedError(
            errorMessages.restartedDuringCall(definition.server, definition.tool),
            {
              server: definition.server,
              tool: definition.tool,
              cause: error,
            },
          );
        }
        if (!(replaced && unsent)) throw error;
        record = current;
        options = { ...options, timeout: Math.max(1, timeout - (Date.now() - started)) };
      }
    }
  }

  /** TOOL_NOT_FOUND for a name, with the servers' states and what the name may have meant. */
  unknownTool(name: string, target: { server: string; tool: string } | undefined): McpBridgeError {
    const host = this.#host;
    return unknownToolError(name, target, host.servers.statuses(), host.registry().list().length);
  }

  /**
   * A tool listed from the catalog cache: waits (within the call's timeout) for its server's live list,
   * then resolves the name again, so a tool the server no longer has fails as unknown. A server that
   * cannot connect is left to the call, which then fails as it does without the cache.
   */
  async #awaitLiveTool(
    name: string,
    record: ServerRecord,
    definition: ToolDefinition,
    options: CallOptions,
  ): Promise<{ definition: ToolDefinition; record: ServerRecord; options: CallOptions }> {
    const host = this.#host;
    const timeout = options.timeout ?? record.definition.callTimeoutMs;
    const started = Date.now();
    const connected = await record.ensureConnected({ signal: options.signal, timeoutMs: timeout }).then(
      () => true,
      () => false,
    );
    const rest = { ...options, timeout: Math.max(1, timeout - (Date.now() - started)) };
    if (!connected || host.closing()) return { definition, record, options: rest };
    const live = host.registry().resolve(name);
    const current = live && host.servers.get(live.server);
    if (!live || !current) throw this.unknownTool(name, host.servers.splitServerTool(name));
    return { definition: live, record: current, options: rest };
  }

  /**
   * A name the registry does not know (yet): waits, up to the call's timeout, for a reload under way
   * and for the servers that may bring the tool (see ServerTable.awaitTool). Only then is it unknown.
   */
  async #resolveLate(name: string, options: CallOptions): Promise<ToolDefinition> {
    const host = this.#host;
    // A reload under way may be adding this tool's server: let it swap its servers in first.
    if (await host.reloads.settled(options.timeout ?? host.settings().callTimeoutMs, options.signal)) {
      const definition = host.registry().resolve(name);
      if (definition) return definition;
    }
    await host.servers.awaitTool(name, options, () => host.registry().resolve(name));
    if (host.closing()) throw closedError();
    const definition = host.registry().resolve(name);
    if (!definition) throw this.unknownTool(name, host.servers.splitServerTool(name));
    return definition;
  }
}
