import type { CommandDeclaration } from "../command-spec.js";
import {
  addDeclaration,
  advisoriesDeclaration,
  auditDeclaration,
  authDeclaration,
  configDeclaration,
  listDeclaration,
  pinsDeclaration,
  quarantineDeclaration,
  removeDeclaration,
  searchDeclaration,
  secretsDeclaration,
  trustDeclaration,
  updateDeclaration,
} from "./config-commands.js";
import {
  attachDeclaration,
  chatDeclaration,
  completionDeclaration,
  daemonDeclaration,
  sandboxDeclaration,
  serveDeclaration,
} from "./process-commands.js";
import {
  callDeclaration,
  promptDeclaration,
  promptsDeclaration,
  readDeclaration,
  resourcesDeclaration,
  statusDeclaration,
  toolsDeclaration,
} from "./server-commands.js";

/**
 * Every command's declaration (name, flags, help text), in the order of `mcp-bridge --help`. Help and
 * argument parsing read these, and each command file spreads its own into its spec, so a declaration
 * is written once and `--help` loads none of the commands (their config, zod, the SDK).
 */
export const DECLARED_COMMANDS: readonly CommandDeclaration[] = [
  listDeclaration,
  addDeclaration,
  removeDeclaration,
  searchDeclaration,
  updateDeclaration,
  advisoriesDeclaration,
  statusDeclaration,
  toolsDeclaration,
  callDeclaration,
  resourcesDeclaration,
  readDeclaration,
  promptsDeclaration,
  promptDeclaration,
  configDeclaration,
  serveDeclaration,
  attachDeclaration,
  chatDeclaration,
  authDeclaration,
  trustDeclaration,
  secretsDeclaration,
  quarantineDeclaration,
  pinsDeclaration,
  auditDeclaration,
  sandboxDeclaration,
  daemonDeclaration,
  completionDeclaration,
] as unknown as readonly CommandDeclaration[];
