import type { CallToolResult } from "@modelcontextprotocol/client";
import {
  bridgeClosed,
  ErrorCode,
  invalidArguments,
  McpBridgeError,
  restartedDuringCall,
  ToolExecutionError,
  toolReportedError,
} from "../errors/index.js";
import { formatToolName } from "../registry/naming.js";
import type { ToolDefinition } from "../registry/tool-definition.js";
import { validateArguments } from "../registry/validate.js";
import { type ConvertOptions, errorToolResult, toToolResult } from "../results/convert.js";
import { OVERFLOW_BUDGET } from "../results/overflow.js";
import type { ToolResult } from "../results/tool-result.js";
import { withRelatedLogs } from "../transport/related-logs-scope.js";
import { loadTokenizer } from "../util/token-count.js";
import { keepUpstream } from "../util/upstream.js";
import type { CallOptions } from "./api.js";
import type { BridgeState } from "./bridge-state.js";
import { admitCall } from "./call-guard.js";
import { recordCall } from "./call-record.js";
import { awaitReconnect, retriesAfterCrash } from "./crash-retry.js";
import { unknownToolError } from "./diagnostics.js";
import { serverLogMessage } from "./features/logging.js";
import { callResourceTool } from "./features/resource-tools.js";
import { screenCall } from "./guardrails.js";
import { resultPolicy } from "./options.js";
import type { ServerRecord } from "./servers/server-record.js";
import { callToolAsTask } from "./tasks.js";

/**
 * One tool call, top-down: resolve the name (waiting for a reload or a connecting server that may
 * bring it), wait for a server being restarted or listed from the tool-list cache, send (as a task
 * when publishing decided so), convert the result, count it.
 */

/** A call as the runtime carries it: the caller's options, the timeout in milliseconds. */
interface CallRequest extends Omit<CallOptions, "timeout"> {
  /** The caller's timeout; undefined means the server's call timeout. */
  readonly timeoutMs: number | undefined;
  /** The guardrails' check of the server's result, before it is converted. */
  readonly screenResult?: (raw: CallToolResult) => Promise<CallToolResult>;
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** `bridge.call`: a failure throws, or with `onError: "result"` becomes an error result naming its target. */
export async function callTool(
  state: BridgeState,
  name: string,
  args: Record<string, unknown>,
  options: CallOptions,
): Promise<ToolResult> {
  const { timeout, ...rest } = options;
  const request: CallRequest = { ...rest, timeoutMs: timeout };
  try {
    return await routeCall(state, name, args, request);
  } catch (error) {
    if ((options.onError ?? state.options.onError) === "result") {
      return errorToolResult(error, resolveTarget(state, name) ?? {});
    }
    throw error;
  }
}

/** Where a name points (a published tool, else `server/tool` of a configured server); no open check. */
export function resolveTarget(
  state: BridgeState,
  name: string,
): { server: string; tool: string } | undefined {
  const definition = state.tools.resolve(name);
  if (definition) return { server: definition.server, tool: definition.tool };
  return state.servers.splitServerTool(name);
}

/** Not async: `callTool` awaits it inside its try, which also catches what this throws. */
function routeCall(
  state: BridgeState,
  name: string,
  args: Record<string, unknown>,
  request: CallRequest,
): Promise<ToolResult> {
  if (state.closing) throw bridgeClosed();
  const own = state.tools.resourceTool(name);
  if (own) {
    return callResourceTool(state.features.resources, own.tool, args, {
      signal: request.signal,
      timeout: request.timeoutMs,
      maxResultChars: request.maxResultChars ?? state.config.settings.maxResultChars,
    });
  }
  return callServerTool(state, name, args, request);
}

/**
 * A call of a server's tool: a name not listed yet waits for a reload or a connecting server, a
 * server being restarted is waited for, a tool listed from the tool-list cache waits for its server's
 * live list, and a call a reload replaced the server under before it was sent goes to the new
 * connection. Each wait is bounded by the call's timeout and signal.
 */
async function callServerTool(
  state: BridgeState,
  name: string,
  args: Record<string, unknown>,
  initialRequest: CallRequest,
): Promise<ToolResult> {
  let request = initialRequest;
  let definition =
    state.tools.registry.resolve(name) ??
    (await keptOut(state, name)) ??
    (await resolveLate(state, name, request));
  const wait = request.timeoutMs ?? state.servers.get(definition.server)?.definition.callTimeoutMs ?? 0;
  const restarting = state.restartGates.pass(definition.server, wait, request.signal);
  if (restarting) await restarting;
  let record = state.servers.get(definition.server);
  if (!record) throw unknownTool(state, name, undefined);
  if (state.toolListCache.served(record)) {
    ({ definition, record, request } = await awaitLiveTool(state, name, record, definition, request));
  }
  // The policy decides on the resolved tool, whatever name the caller spelled; a refusal is the result.
  const admission = await admitCall(state, definition, args, request);
  if (admission.denied) return admission.denied;
  // Beside the policy, the guardrails: arguments checked (maybe masked) before sending, results after.
  const screened = await screenCall(state, definition, args, request);
  if (screened.denied) return screened.denied;
  if (screened.screenResult) request = { ...request, screenResult: screened.screenResult };
  try {
    const result = await sendFollowingServer(state, record, definition, screened.args, request);
    admission.done(result, undefined);
    return result;
  } catch (error) {
    admission.done(errorResultOf(error), error);
    throw error;
  }
}

/** The tool's own error result a ToolExecutionError carries (`onError: "throw"`), else none. */
function errorResultOf(error: unknown): ToolResult | undefined {
  return error instanceof ToolExecutionError && error.result !== undefined
    ? (error.result as ToolResult)
    : undefined;
}

/** Sends the call to `record`, following its server through reloads that replace it before it is sent. */
async function sendFollowingServer(
  state: BridgeState,
  initial: ServerRecord,
  definition: ToolDefinition,
  args: Record<string, unknown>,
  initialRequest: CallRequest,
): Promise<ToolResult> {
  let record = initial;
  let request = initialRequest;
  const started = Date.now();
  const timeoutMs = request.timeoutMs ?? record.definition.callTimeoutMs;
  let retried = false;
  // A call still waiting for its server when a reload replaced that server was never sent (the
  // replaced connection reports itself closed): it follows the server to each new record, through
  // any number of replacements, within its own timeout.
  for (;;) {
    try {
      return await sendCall(state, record, definition, args, request);
    } catch (error) {
      const current = state.servers.get(definition.server);
      const replaced = current !== undefined && current !== record && !state.closing;
      const unsent = error instanceof McpBridgeError && error.code === ErrorCode.BridgeClosed;
      if (replaced && record.restarted && !unsent && isConnectionLoss(error)) {
        throw restartedDuringCall({ server: definition.server, tool: definition.tool, cause: error });
      }
      // retryCrashedCalls: a harmless tool's call is sent once more once its server is back.
      if (!retried && !replaced && !state.closing && retriesAfterCrash(record, definition, error)) {
        retried = true;
        request = { ...request, timeoutMs: remainingOf(timeoutMs, started) };
        const back = await awaitReconnect(record, {
          signal: request.signal,
          timeoutMs: request.timeoutMs ?? 1,
        });
        if (!back || state.closing) throw error;
        state.logger.info(
          `Calling ${definition.server}/${definition.tool} again: the server crashed during the call`,
          {
            server: definition.server,
            tool: definition.tool,
          },
        );
        continue;
      }
      if (!(replaced && unsent)) throw error;
      record = current;
      request = { ...request, timeoutMs: remainingOf(timeoutMs, started) };
    }
  }
}

/**
 * A tool kept out because its definition drifted from its pin: its TOOL_CHANGED error, thrown (after
 * any question about the drift was answered: a tool accepted then resolves). Undefined: not kept out.
 */
async function keptOut(state: BridgeState, name: string): Promise<ToolDefinition | undefined> {
  const target = blockedTarget(state, name);
  if (!target) return undefined;
  await state.pins.settled();
  const accepted = state.tools.registry.resolve(name);
  if (accepted) return accepted;
  const error = state.pins.blockedTool(target.server, target.tool);
  if (error) throw error;
  return undefined;
}

/** The server and tool a name means among the tools kept out: `server/tool` or the name it would be exposed as. */
function blockedTarget(state: BridgeState, name: string): { server: string; tool: string } | undefined {
  const split = state.servers.splitServerTool(name);
  if (split && state.pins.blockedTool(split.server, split.tool)) return split;
  const format = state.config.settings.toolNameFormat;
  return state.pins.blockedTools().find(({ server, tool }) => formatToolName(format, server, tool) === name);
}

/**
 * A name the registry does not know (yet): waits, up to the call's timeout, for a reload under way
 * and for the servers that may bring the tool (see ServerTable.awaitTool). Only then is it unknown.
 */
async function resolveLate(state: BridgeState, name: string, request: CallRequest): Promise<ToolDefinition> {
  // A reload under way may be adding this tool's server: let it swap its servers in first.
  const reloadWait = request.timeoutMs ?? state.config.settings.callTimeoutMs;
  if (await state.reloads.settled(reloadWait, request.signal)) {
    const definition = state.tools.registry.resolve(name);
    if (definition) return definition;
  }
  await state.servers.awaitTool(
    name,
    request,
    () => state.tools.registry.resolve(name),
    state.tools.formerServerOf(name),
  );
  if (state.closing) throw bridgeClosed();
  const definition = state.tools.registry.resolve(name);
  if (!definition) throw unknownTool(state, name, state.servers.splitServerTool(name));
  return definition;
}

/**
 * A tool listed from the tool-list cache: waits (within the call's timeout) for its server's live
 * list, then resolves the name again, so a tool the server no longer has fails as unknown. A server
 * that cannot connect is left to the call, which then fails as it does without the cache.
 */
async function awaitLiveTool(
  state: BridgeState,
  name: string,
  record: ServerRecord,
  definition: ToolDefinition,
  request: CallRequest,
): Promise<{ definition: ToolDefinition; record: ServerRecord; request: CallRequest }> {
  const timeoutMs = request.timeoutMs ?? record.definition.callTimeoutMs;
  const started = Date.now();
  const connected = await record.ensureConnected({ signal: request.signal, timeoutMs }).then(
    () => true,
    () => false,
  );
  const rest = { ...request, timeoutMs: remainingOf(timeoutMs, started) };
  if (!connected || state.closing) return { definition, record, request: rest };
  const live = state.tools.registry.resolve(name);
  const current = live && state.servers.get(live.server);
  if (!live || !current) throw unknownTool(state, name, state.servers.splitServerTool(name));
  return { definition: live, record: current, request: rest };
}

/** One call of a resolved tool on its server: argument check, the call, result conversion and stats. */
async function sendCall(
  state: BridgeState,
  record: ServerRecord,
  definition: ToolDefinition,
  args: Record<string, unknown>,
  request: CallRequest,
): Promise<ToolResult> {
  if (request.validateArguments ?? state.options.validateArguments) {
    const issues = validateArguments(definition.inputSchema, args);
    if (issues.length > 0) {
      const { server, tool, name } = definition;
      throw invalidArguments({ server, tool, name, issues });
    }
  }
  const started = performance.now();
  try {
    const sent = await send(state, record, definition, args, request);
    const raw = request.screenResult ? await request.screenResult(sent) : sent;
    const result = await convert(state, record, definition, raw, request);
    recordCall(state, definition, performance.now() - started, result.isError ? "error" : "ok");
    if (result.isError && (request.onError ?? state.options.onError) === "throw") {
      const text = state.options.secrets.text(result.text);
      throw toolReportedError({ server: definition.server, tool: definition.tool, text, result });
    }
    return result;
  } catch (error) {
    if (!(error instanceof ToolExecutionError && error.result !== undefined)) {
      const outcome =
        error instanceof McpBridgeError && error.code === ErrorCode.ToolTimeout ? "timeout" : "error";
      recordCall(state, definition, performance.now() - started, outcome);
    }
    throw error;
  }
}

/**
 * The request on the wire: a task-augmented call when publishing decided the tool runs as a task. With
 * `onLog`, the log messages the server sends on the call's own response stream go to it too.
 */
function send(
  state: BridgeState,
  record: ServerRecord,
  definition: ToolDefinition,
  args: Record<string, unknown>,
  request: CallRequest,
): Promise<CallToolResult> {
  const onLog = request.onLog;
  if (!onLog) return sendRequest(state, record, definition, args, request);
  const { server } = definition;
  const { secrets } = state.options;
  return withRelatedLogs(
    (params) => onLog(serverLogMessage(server, params, secrets)),
    () => sendRequest(state, record, definition, args, request),
  );
}

function sendRequest(
  state: BridgeState,
  record: ServerRecord,
  definition: ToolDefinition,
  args: Record<string, unknown>,
  request: CallRequest,
): Promise<CallToolResult> {
  const timeoutMs = request.timeoutMs ?? record.definition.callTimeoutMs;
  const own = request.upstream?.(definition.server, definition.tool, args, {
    timeoutMs,
    signal: request.signal,
    onProgress: request.onProgress,
    resetTimeoutOnProgress: request.resetTimeoutOnProgress,
  });
  if (own) return own;
  const client = state.tools.runsAsTask(definition) ? record.connection?.sessionClient() : undefined;
  if (client) {
    return callToolAsTask(client, args, {
      server: definition.server,
      tool: definition.tool,
      timeoutMs,
      signal: request.signal,
      onProgress: request.onProgress,
    });
  }
  return record.callTool(definition.tool, args, {
    timeoutMs,
    signal: request.signal,
    onProgress: request.onProgress,
    resetTimeoutOnProgress: request.resetTimeoutOnProgress,
    inputRound: request.inputRound,
  });
}

/** The server's result as the model sees it, under the call's, the server's and the bridge's limits. */
async function convert(
  state: BridgeState,
  record: ServerRecord,
  definition: ToolDefinition,
  raw: CallToolResult,
  request: CallRequest,
): Promise<ToolResult> {
  const server = record.definition;
  const settings = state.config.settings;
  const policy = resultPolicy(state.options.results, settings);
  const maxResultTokens = request.maxResultTokens ?? server.maxResultTokens ?? policy.maxTokens;
  // Built field by field: this runs on every call, and spreading empty objects allocates each.
  const options: Writable<ConvertOptions> = {
    maxResultChars: request.maxResultChars ?? server.maxResultChars ?? settings.maxResultChars,
  };
  if (maxResultTokens !== undefined) {
    options.maxResultTokens = maxResultTokens;
    options.tokenizer = await loadTokenizer();
  }
  if (policy.overflow === "file") {
    const { overflowDir, overflowMaxBytes, overflowMaxAgeMs } = policy;
    options.overflow = (full: string) =>
      state.overflowFiles.write(full, definition, overflowDir, {
        maxBytes: overflowMaxBytes ?? OVERFLOW_BUDGET.maxBytes,
        maxAgeMs: overflowMaxAgeMs ?? OVERFLOW_BUDGET.maxAgeMs,
      });
  }
  return keepUpstream(toToolResult(raw, options), raw);
}

/** TOOL_NOT_FOUND for a name, with the servers' states and what the name may have meant. */
function unknownTool(
  state: BridgeState,
  name: string,
  target: { server: string; tool: string } | undefined,
): McpBridgeError {
  const blocked = blockedTarget(state, name);
  const changed = blocked && state.pins.blockedTool(blocked.server, blocked.tool);
  if (changed) return changed;
  return unknownToolError(name, target, state.servers.statuses(), state.tools.registry.list().length);
}

/** The call failed because its connection went away (not because of the tool, a timeout or the caller). */
function isConnectionLoss(error: unknown): boolean {
  return error instanceof McpBridgeError && error.code === ErrorCode.ServerCrashed;
}

/** What is left of a timeout begun at `started` (at least 1 ms, so it still fails as a timeout). */
function remainingOf(timeoutMs: number, started: number): number {
  return Math.max(1, timeoutMs - (Date.now() - started));
}
