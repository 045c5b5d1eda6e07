import { loadConfig } from "../../../config/load.js";
import type { ResolvedConfig } from "../../../config/model.js";
import type { PolicySettings } from "../../../config/policy-settings.js";
import { callArguments } from "../../../util/key-values.js";
import {
  callDocument,
  type Owners,
  owningServers,
  unknownServerFailure,
  writtenServerNames,
} from "../../daemon/documents.js";
import type { CallRequest } from "../../daemon/protocol.js";
import { cliBridgeOptions, startWithProgress } from "../bridge-commands.js";
import { progressPrinter, renderAnswer } from "../command-answers.js";
import type { CommandContext } from "../command-context.js";
import { askedBy } from "../command-requests.js";
import { defineCommand } from "../command-spec.js";
import { type CliConfigSource, cliConfigSource, inputsAsWritten, loadOptionsFor } from "../config-choice.js";
import { callDeclaration } from "../declarations/server-commands.js";

/** `mcp-bridge call TOOL [key=value ...]`: starts only the server that owns TOOL. */
async function runCall(context: CommandContext): Promise<number> {
  const asked = askedBy("call", context);
  const request = asked.body as unknown as CallRequest;
  // Consent first: even finding the owning server reads (and expands) the project's definitions.
  const source = await cliConfigSource(context, { consent: true });
  // Names only: an entry using ${input:...} is asked for (or its remembered answer used) when it starts.
  const resolved = await loadConfig({ ...loadOptionsFor(context, source), resolveInput: inputsAsWritten });
  warnOfPerProcessLimits(context, resolved.settings.policy);
  const owners = ownersOf(resolved, request.name);
  const unknown = unknownServerFailure(request.name, owners);
  if (unknown) return renderAnswer(context, asked, unknown);
  const options = await cliBridgeOptions(context, source);
  const bridge = await startWithProgress(context, { ...options, only: owners.only });
  try {
    const envelope = await callDocument(
      bridge,
      {
        name: request.name,
        args: (schema, tool) => callArguments(request.args, request.pairs, schema, tool),
        timeout: request.timeout,
        maxResultChars: request.maxResultChars,
        signal: context.io.signal,
        onProgress: request.progress ? progressPrinter(context) : undefined,
      },
      owners,
    );
    return renderAnswer(context, asked, envelope);
  } finally {
    await bridge.close();
  }
}

/**
 * The servers that can own TOOL, so only they are started (see `owningServers`), read from the config
 * before anything starts.
 */
function ownersOf(resolved: ResolvedConfig, name: string): Owners {
  return owningServers(name, writtenServerNames(resolved), resolved.settings.toolNameFormat);
}

/**
 * A policy `limit` counts calls in the process that makes them: a call run here (no daemon answered)
 * starts from zero and never reaches it, which is worth saying rather than seeming to enforce it.
 */
function warnOfPerProcessLimits(context: CommandContext, policy: PolicySettings | undefined): void {
  if (!policy?.rules?.some((rule) => rule.action === "limit")) return;
  context.logger.warn(
    'The policy\'s "limit" rules count calls per process: this `mcp-bridge call` starts from zero, so separate runs never reach a limit. Start the daemon (`mcp-bridge daemon start`) so CLI calls share one count.',
  );
}

export const callCommand = defineCommand({
  ...callDeclaration,
  run: runCall,
});
