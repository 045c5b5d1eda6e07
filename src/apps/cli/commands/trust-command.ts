import type { LoadConfigOptions } from "../../../config/load.js";
import type { AdmitProjectServer, ProjectServerRequest } from "../../../config/model.js";
import {
  approvedBy,
  defaultTrustFile,
  describeRequest,
  pendingProjectServers,
  pinnedTo,
  projectServerRequests,
  TrustStore,
} from "../../../config/trust.js";
import { projectNotTrusted } from "../../../errors/cli-errors.js";
import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
import { trustDeclaration } from "../declarations/config-commands.js";
import { writeJson } from "../output.js";
import { canAsk, clean, confirm } from "../terminal-ask.js";
import { commandUsage } from "../usage-errors.js";

/** Set to 1/true in CI to start project-level servers without asking (like --trust-project). */
export const TRUST_ENV = "MCP_BRIDGE_TRUST_PROJECT";

const HOW =
  "Review the definitions, then run `mcp-bridge trust` in this folder to approve them (remembered until a definition changes), " +
  `pass --trust-project for this run, or set ${TRUST_ENV}=1 (CI).`;

function loadOptionsOf(context: CommandContext, config: string | undefined): LoadConfigOptions {
  return { path: config, cwd: context.io.cwd, env: context.io.env };
}

function trustedByFlag(context: CommandContext): boolean {
  const value = context.io.env[TRUST_ENV];
  return context.global.trustProject || (value !== undefined && /^(1|true|yes)$/i.test(value));
}

/**
 * Consent before servers of project-level config files start: nothing to do for approved definitions
 * (or with --trust-project / MCP_BRIDGE_TRUST_PROJECT, for the definitions there now); otherwise ask on a terminal and remember the
 * answer, and without a terminal refuse, saying how to approve. Returns the predicate the loader uses,
 * so a definition that changes on reload is left out until approved.
 */
export async function projectConsent(
  context: CommandContext,
  config: string | undefined,
): Promise<AdmitProjectServer | undefined> {
  const store = new TrustStore(defaultTrustFile({ env: context.io.env }));
  // The flag approves what is there now, not whatever a later reload brings (see pinnedTo).
  if (trustedByFlag(context))
    return pinnedTo(await projectServerRequests(loadOptionsOf(context, config)), store);
  const pending = await pendingProjectServers(loadOptionsOf(context, config), store);
  if (pending.length === 0) return approvedBy(store);
  const listing = pending.map((request) => describeRequest(request, clean)).join("\n");
  const { stderr } = context.io;
  if (!canAsk(context.io)) {
    throw projectNotTrusted({ listing, how: HOW });
  }
  stderr.write(
    `This project's config files define servers that will run commands or contact URLs on your behalf:\n${listing}\n`,
  );
  if (await confirm(context.io, "Approve and start them? [y/N] ")) {
    store.approve(pending);
    stderr.write(`Approved; remembered in ${store.file}.\n`);
  } else {
    stderr.write("Not approved; those servers are left out.\n");
  }
  return approvedBy(store);
}

/**
 * `mcp-bridge trust [list|revoke]`: approve every server of the project-level config files in this
 * folder (printing what is approved), list what is pending, or forget this folder's approvals.
 */
async function runTrust(context: CommandContext): Promise<number> {
  const [sub = "approve"] = context.positionals;
  const store = new TrustStore(defaultTrustFile({ env: context.io.env }));
  const all = await projectServerRequests(loadOptionsOf(context, context.global.config));
  const pending = all.filter((request) => !store.isApproved(request));
  const report = (verb: string, requests: readonly ProjectServerRequest[]) => {
    if (context.global.json) {
      writeJson(context.io, {
        [verb]: requests.map((request) => ({ file: request.file, server: request.name })),
        store: store.file,
      });
    } else if (requests.length === 0) {
      context.io.stdout.write("No project-level servers awaiting approval here.\n");
    } else {
      const listing = requests.map((request) => describeRequest(request, clean)).join("\n");
      context.io.stdout.write(`${verb === "approved" ? "Approved" : "Awaiting approval"}:\n${listing}\n`);
    }
  };
  switch (sub) {
    case "approve":
      store.approve(pending);
      report("approved", pending);
      return 0;
    case "list":
      report("pending", pending);
      return 0;
    case "revoke": {
      const files = [...new Set(all.map((request) => request.file))];
      store.revoke(files);
      if (context.global.json) writeJson(context.io, { revoked: files, store: store.file });
      else context.io.stdout.write(`Forgot the approvals of ${files.length} project file(s).\n`);
      return 0;
    }
    default:
      throw commandUsage("trust [approve|list|revoke]");
  }
}

export const trustCommand = defineCommand({
  ...trustDeclaration,
  run: runTrust,
});
