import { IMPORT_SOURCES } from "../../../config/model.js";
import { declareCommand } from "../command-spec.js";
import { AD_HOC_FLAGS } from "../daemon-command-flags.js";

export const listDeclaration = declareCommand({
  name: "list",
  aliases: ["ls"],
  summary: "the configured servers, without starting them (status starts them, tools lists their tools)",
  flags: AD_HOC_FLAGS,
  positionals: { usage: "[SERVER]", min: 0, max: 1 },
  description:
    "With SERVER (as `mcporter list SERVER`): starts that server only and lists its tools as signatures, `name(a: number, b?: string)`, each with its description; --json gives them with their input schemas.",
  examples: [
    "list",
    "list calc",
    "list --json",
    "list -c ./mcp.json",
    'list --stdio "npx -y @modelcontextprotocol/server-memory"',
  ],
});

export const addDeclaration = declareCommand({
  name: "add",
  summary: "add a server to the config file, keeping its comments and formatting",
  flags: {
    transport: {
      type: "string",
      short: "t",
      value: "stdio|http|sse",
      description: "the server's transport (default: http for a URL, stdio for a command)",
    },
    url: {
      type: "string",
      value: "URL",
      description: "a remote server's URL (Codex's form; or give it after NAME)",
    },
    env: {
      type: "string",
      short: "e",
      multiple: true,
      value: "KEY=VALUE",
      description: "an environment variable of a stdio server",
    },
    header: {
      type: "string",
      short: "H",
      multiple: true,
      value: "'Name: value'",
      description: "an HTTP header of a remote server (or Name=value)",
    },
    cwd: { type: "string", value: "DIR", description: "a stdio server's working directory" },
    force: { type: "boolean", description: "replace a server of that name" },
  },
  positionals: { usage: "NAME [URL | -- COMMAND ARGS...]", min: 1, max: Number.POSITIVE_INFINITY },
  description:
    "Writes to --config, else the first config file of the search order, else creates ~/.config/mcp-bridge/mcp.json, in the form of the host that owns the file (Codex's config.toml: http_headers, env_http_headers and bearer_token_env_var, no type). The result is loaded before the file is replaced; values of --env and --header are written but never printed. Put a secret in the file as ${VAR}, in single quotes so the shell leaves it alone: it is read from the environment when the server starts.",
  examples: [
    "add memory -- npx -y @modelcontextprotocol/server-memory",
    "add --transport http docs https://example.com/mcp --header 'Authorization: Bearer ${TOKEN}'",
    "add docs --url https://example.com/mcp",
    "add files -e ROOT=/tmp -- npx -y @modelcontextprotocol/server-filesystem /tmp",
  ],
});

export const removeDeclaration = declareCommand({
  name: "remove",
  aliases: ["rm"],
  summary: "remove a server from the config file that defines it",
  flags: {},
  positionals: { usage: "NAME", min: 1, max: 1 },
  examples: ["remove memory"],
});

export const configDeclaration = declareCommand({
  name: "config",
  summary: "the resolved config (secrets redacted), search paths, JSON Schema, validation, imports",
  flags: {
    from: {
      type: "string",
      value: "HOST",
      description: `with import: the host whose servers to list (${IMPORT_SOURCES.join(", ")})`,
    },
  },
  positionals: {
    usage: "show|paths|schema|validate|import",
    min: 1,
    max: 1,
    choices: ["show", "paths", "schema", "validate", "import"],
  },
  examples: [
    "config show",
    "config paths",
    "config validate -c ./mcp.json",
    "config import --from claude-desktop",
  ],
});

export const authDeclaration = declareCommand({
  name: "auth",
  summary:
    "OAuth login for a remote server (browser + 127.0.0.1 callback); tokens kept per server, mode 0600; forget-inputs: forget the remembered ${input:...} answers",
  flags: {},
  positionals: {
    usage: "login|logout|status [SERVER] | forget-inputs",
    min: 1,
    max: 2,
    choices: ["login", "logout", "status", "forget-inputs"],
  },
  examples: [
    "auth login linear",
    "auth status",
    "auth logout linear",
    "auth forget-inputs -c .vscode/mcp.json",
  ],
});

export const trustDeclaration = declareCommand({
  name: "trust",
  summary: "approve the servers of this folder's project config files (./mcp.json, ./.mcp.json, ...)",
  flags: {},
  positionals: { usage: "[approve|list|revoke]", min: 0, max: 1, choices: ["approve", "list", "revoke"] },
  examples: ["trust", "trust list", "trust revoke"],
});

export const quarantineDeclaration = declareCommand({
  name: "quarantine",
  summary: "show and approve servers held because another host's config added them (`imports`)",
  description:
    "list (default): each held server with its file and definition (commands, URLs, env names; secrets masked). approve [SERVER...]: approve the named held servers (all of them when none is named); an approval covers that exact definition, so a changed one is held again. The setting `quarantine` (imports, all, off) decides what is held. With --json: { held: [{ file, server, definition }], store } or { approved, store }.",
  flags: {},
  positionals: { usage: "[list|approve] [SERVER...]", min: 0, max: 100 },
  examples: ["quarantine", "quarantine approve memory", "quarantine approve"],
});

export const pinsDeclaration = declareCommand({
  name: "pins",
  summary: "show, compare and accept the pinned tool definitions of servers (trust on first use)",
  description:
    "list: each server's pins and whether its current tools drifted. diff SERVER: what changed (exit 1 when something did). accept SERVER: take its current tools as the new pins (blocked tools come back). With --json: { servers: [...] } or { accepted }.",
  flags: {},
  positionals: { usage: "[list|diff|accept] [SERVER]", min: 0, max: 2 },
  examples: ["pins", "pins diff github", "pins accept github"],
});

export const auditDeclaration = declareCommand({
  name: "audit",
  summary: "check an audit log's hash chain (`audit verify [FILE...]`; default: the config's audit file)",
  description:
    "Verifies the SHA-256 chain of the audit log written by the `audit` setting: any edited, deleted, inserted or reordered record is named by file and line. Without FILE, the config's `audit.file` and its rotated files are checked. Give the rotated files too (audit.2.jsonl audit.1.jsonl audit.jsonl, in any order) to check the chain across them. Exit code 0 when intact, 1 when broken. --json prints { ok, records, startsAt, problems: [{ file, line, problem }] }.",
  flags: {},
  positionals: { usage: "verify [FILE...]", min: 1, max: Number.POSITIVE_INFINITY, choices: ["verify"] },
  examples: [
    "audit verify",
    "audit verify ~/.mcp-bridge/audit.jsonl",
    "audit verify audit.1.jsonl audit.jsonl --json",
  ],
});
