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
    keyring: {
      type: "boolean",
      description:
        "store secret --env/--header values (with a registry NAME: its secret --var values) in the OS keychain (see secrets) and write ${keyring:SERVER.KEY} instead (a terminal is asked)",
    },
    registry: {
      type: "string",
      multiple: true,
      value: "URL",
      description:
        "with a registry NAME: the MCP Registry to ask (repeatable, asked in order; default: the `registry` setting, else the official one)",
    },
    remote: { type: "boolean", description: "with a registry NAME: use its remote endpoint, not a package" },
    var: {
      type: "string",
      multiple: true,
      value: "KEY=VALUE",
      description: "with a registry NAME: a value the entry asks for (a variable, header or argument)",
    },
    as: {
      type: "string",
      value: "NAME",
      description: "with a registry NAME: the server's name in the config",
    },
    yes: { type: "boolean", short: "y", description: "with a registry NAME: write without asking" },
    "dry-run": {
      type: "boolean",
      description: "with a registry NAME: show what would be written, write nothing",
    },
  },
  positionals: {
    usage: "NAME [URL | -- COMMAND ARGS...] | REGISTRY-NAME[@VERSION]",
    min: 1,
    max: Number.POSITIVE_INFINITY,
  },
  description:
    "Writes to --config, else the first config file of the search order, else creates ~/.config/mcp-bridge/mcp.json, in the form of the host that owns the file (Codex's config.toml: http_headers, env_http_headers and bearer_token_env_var, no type). The result is loaded before the file is replaced; values of --env and --header are written but never printed. Put a secret in the file as ${VAR}, in single quotes so the shell leaves it alone: it is read from the environment when the server starts. A pasted secret (a secret-named env variable, a token-shaped value, a header other than Accept, Content-Type, ...) can go to the OS keychain instead: a terminal is asked, --keyring stores without asking, and the file gets ${keyring:SERVER.KEY}.",
  examples: [
    "add memory -- npx -y @modelcontextprotocol/server-memory",
    "add --transport http docs https://example.com/mcp --header 'Authorization: Bearer ${TOKEN}'",
    "add docs --url https://example.com/mcp",
    "add files -e ROOT=/tmp -- npx -y @modelcontextprotocol/server-filesystem /tmp",
    "add io.github.modelcontextprotocol/filesystem@1.0.2 --var target_dir=/tmp",
  ],
});

export const updateDeclaration = declareCommand({
  name: "update",
  summary: "move servers installed from a registry to its latest version, after showing what changes",
  flags: {
    yes: { type: "boolean", short: "y", description: "update without asking" },
    "dry-run": { type: "boolean", description: "show the updates and their changes, write nothing" },
  },
  positionals: { usage: "[NAME]", min: 0, max: 1 },
  examples: ["update", "update filesystem --dry-run", "update --yes"],
});

export const advisoriesDeclaration = declareCommand({
  name: "advisories",
  summary:
    "refresh the OSV malware advisories the `advisories` setting names, from a file or address you give",
  flags: {},
  positionals: { usage: "refresh SOURCE", min: 2, max: 2, choices: ["refresh"] },
  examples: [
    "advisories refresh ./osv-npm-malware.json",
    "advisories refresh https://example.com/osv/all.json",
  ],
});

export const searchDeclaration = declareCommand({
  name: "search",
  summary: "find servers in the MCP Registry (name, version, description, how it runs)",
  flags: {
    registry: {
      type: "string",
      multiple: true,
      value: "URL",
      description:
        "the MCP Registry to ask (repeatable; default: the `registry` setting, else the official one)",
    },
    limit: { type: "int", value: "N", description: "at most N servers (default 20)" },
  },
  positionals: { usage: "QUERY", min: 1, max: 1 },
  examples: ["search filesystem", "search github --json"],
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
    keyring: {
      type: "boolean",
      description:
        "with import: store the literal secrets found in the host's file in the OS keychain (a terminal is asked) and print their ${keyring:…} references",
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

export const secretsDeclaration = declareCommand({
  name: "secrets",
  summary: "keep API keys in the OS keychain (or an encrypted file) for ${keyring:NAME} in a config",
  description:
    "set NAME: stores a value read from a prompt without echo, or from stdin when piped (never from the command line). get NAME: prints it (refused on a terminal without --reveal). list: the names only. rm NAME: removes it. Where: the OS credential store (Secret Service, macOS Keychain, Windows Credential Manager); MCP_BRIDGE_SECRET_STORE=file chooses an encrypted file instead (key from MCP_BRIDGE_SECRET_PASSPHRASE or MCP_BRIDGE_SECRET_KEY_FILE). With --json: { stored }, { name, value }, { store, names } or { removed }.",
  flags: { reveal: { type: "boolean", description: "get: print the value even on a terminal" } },
  positionals: { usage: "set|get|list|rm [NAME]", min: 1, max: 2, choices: ["set", "get", "list", "rm"] },
  examples: [
    "secrets set GITHUB_TOKEN",
    "secrets list",
    "secrets get GITHUB_TOKEN --reveal",
    "secrets rm GITHUB_TOKEN",
  ],
});
