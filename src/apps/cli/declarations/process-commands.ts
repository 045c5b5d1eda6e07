import { declareCommand, TAG_FLAG } from "../command-spec.js";
import type { Flags, PositionalSpec } from "../parse-arguments.js";

/** The environment variable holding static bearer tokens (comma-separated) for `serve --http`. */
export const TOKENS_ENV = "MCP_BRIDGE_GATEWAY_TOKENS";

/** The environment variable holding the admin token of `serve --http`, unless --admin-token-env names another. */
export const ADMIN_TOKEN_ENV = "MCP_BRIDGE_GATEWAY_ADMIN_TOKEN";

/** `serve --llm-results` and `attach --llm-results` (see GatewayOptions.llmResults). */
const LLM_RESULTS_FLAG = {
  type: "boolean",
  description:
    "serve tool results as text for a model (images described, cut at maxResultChars) instead of unchanged; per client: a profile's llmResults",
} as const;

export const SERVE_FLAGS = {
  stdio: { type: "boolean", description: "serve MCP on stdin/stdout" },
  tag: TAG_FLAG,
  http: {
    type: "address",
    value: "[HOST:]PORT",
    description: "serve Streamable HTTP at /mcp (host 127.0.0.1 unless given)",
  },
  auth: {
    type: "path",
    value: "FILE",
    description: "JSON file of bearer tokens, OAuth (JWT) settings and profiles",
  },
  "state-keys": {
    type: "path",
    value: "FILE",
    description: "keys (KID:BASE64, mode 0600) sealing requestState, shared by every replica",
  },
  "max-body": {
    type: "int",
    value: "BYTES",
    description: "largest request body (default 4194304; 413 above)",
  },
  "max-calls": {
    type: "int",
    value: "N",
    description: "tool calls one client may run at once (default 16); more wait their turn",
  },
  "max-queued": {
    type: "int",
    min: 0,
    value: "N",
    description:
      "tool calls of one client that may wait for a running one to end (default 64; refused above)",
  },
  "calls-per-minute": {
    type: "int",
    value: "N",
    description: "tool calls one client may start per minute",
  },
  drain: {
    type: "duration",
    value: "DURATION",
    description: "on SIGTERM, how long in-flight calls may finish (default 30s)",
  },
  "session-idle": {
    type: "duration",
    value: "DURATION",
    description: "close a 2025-11-25 session after this long without a request (default 30m; 0 never)",
  },
  "list-wait": {
    type: "duration",
    value: "DURATION",
    description:
      "how long a client's first tools/list (and a REST listing) waits for servers still starting without a cached list (default 5s; 0 answers at once)",
  },
  "llm-results": LLM_RESULTS_FLAG,
  "tool-names": {
    type: "string",
    value: "FORMAT",
    description: 'served tool names; {server} and {tool} are replaced (default "{server}_{tool}")',
  },
  "admin-tools": {
    type: "boolean",
    description:
      "also serve the tools mcp_bridge_admin_status, _reload and _restart (clients without a profile, or with admin: true)",
  },
  "admin-token-env": {
    type: "string",
    value: "NAME",
    description: `environment variable holding the bearer token of GET /status, POST /reload, POST /restart/SERVER (default ${ADMIN_TOKEN_ENV}; without one these routes are 404)`,
  },
  "code-mode": {
    type: "boolean",
    description:
      "serve only three tools, search_tools, describe_tools and execute_code: clients write a program that calls the servers' tools in a sandbox (see docs/code-mode.md)",
  },
  metrics: {
    type: "address",
    value: "[HOST:]PORT",
    description:
      "serve Prometheus metrics at /metrics (host 127.0.0.1 unless given; needs the OpenTelemetry SDK packages)",
  },
  store: {
    type: "string",
    value: "URL",
    description:
      "share per-client budgets and 2025-11-25 sessions with the other replicas through Redis (redis://HOST:PORT; see docs/deploy.md)",
  },
  "state-dir": {
    type: "path",
    value: "DIR",
    description:
      "keep the 2025-11-25 sessions' records in this private folder, so a restarted gateway (even after kill -9) continues every session it issued within --session-idle (see docs/gateway.md)",
  },
  "replica-id": {
    type: "string",
    value: "ID",
    description: "this replica's id in the cluster store (default a random one per start)",
  },
  "advertise-url": {
    type: "string",
    value: "URL",
    description: "the /mcp URL other replicas reach this one at (default the URL it listens on)",
  },
  "cluster-secret-file": {
    type: "path",
    value: "FILE",
    description:
      "private file (chmod 600, 32+ bytes) shared by the replicas: signs the requests they forward to each other and what they write to the store (--store requires it)",
  },
  "insecure-store": {
    type: "boolean",
    description:
      "use --store without --cluster-secret-file: only when nothing but the replicas can write to the store (its session records cannot be authenticated)",
  },
} as const satisfies Flags;

/** A daemon `attach` starts stops after this long without a request or an attached session. */
export const DAEMON_DEFAULT_IDLE = "10m";

export const ATTACH_FLAGS = {
  idle: {
    type: "duration",
    value: "DURATION",
    description: `when it starts the daemon: stop after this long with no request and no session attached (default ${DAEMON_DEFAULT_IDLE}; 0: never)`,
  },
  "code-mode": {
    type: "boolean",
    description:
      "serve this session only search_tools, describe_tools and execute_code: the host's model writes a program that calls the servers' tools in a sandbox (see docs/code-mode.md)",
  },
  "llm-results": LLM_RESULTS_FLAG,
} as const satisfies Flags;

export const ATTACH_POSITIONALS: PositionalSpec = { usage: "", min: 0, max: 0 };

/** The shells `completion` writes a script for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;

export const serveDeclaration = declareCommand({
  name: "serve",
  summary: "serve every configured server's tools as one MCP server (stdio or Streamable HTTP)",
  description: `Bearer tokens: ${TOKENS_ENV} (comma-separated) and/or --auth FILE. Binding other than 127.0.0.1 requires a token.`,
  flags: SERVE_FLAGS,
  positionals: { usage: "", min: 0, max: 0 },
  examples: [
    "serve --stdio",
    "serve --http 8080",
    "serve --http 0.0.0.0:8080 --auth tokens.json",
    "serve --http 8080 --metrics 9464",
  ],
});

export const attachDeclaration = declareCommand({
  name: "attach",
  summary: "serve MCP on stdin/stdout from the config's daemon: every session shares one set of servers",
  flags: ATTACH_FLAGS,
  positionals: ATTACH_POSITIONALS,
  description: `Configure it in a host in place of \`serve --stdio\` ({"command": "mcp-bridge", "args": ["attach"]}). It starts no server itself: it connects to the daemon for the config (starting one, idle stop ${DAEMON_DEFAULT_IDLE}, when none runs) and relays the host's MCP session to it, so every host session and CLI command shares one set of upstream processes, one tool cache and one OAuth state. The daemon stays up while a session is attached; when it stops or crashes, attach reconnects (starting a new one), answers the requests that were running with an error and tells the host the lists changed. Tools are named as serve names them (<server>_<tool>, or the config's serveToolNameFormat), whatever names the CLI uses.`,
  examples: ["attach", "attach -c ./mcp.json", "attach --idle 1h", "attach --code-mode"],
});

export const chatDeclaration = declareCommand({
  name: "chat",
  summary: "talk to a model that uses every server's tools (/help inside)",
  flags: {
    model: {
      type: "string",
      short: "m",
      value: "MODEL",
      description: "the model (default: from the environment)",
    },
    provider: {
      type: "choice",
      choices: ["openai", "anthropic"],
      value: "NAME",
      description: "openai or anthropic (default: from the API key found)",
    },
    "base-url": { type: "string", value: "URL", description: "an OpenAI-compatible endpoint (local models)" },
    system: { type: "string", value: "TEXT", description: "the system prompt" },
    print: {
      type: "string",
      short: "p",
      value: "QUESTION",
      description: "print one answer and exit (--json: the transcript)",
    },
    yes: {
      type: "boolean",
      short: "y",
      description: "run tools and answer servers' sampling requests without asking",
    },
    "code-mode": {
      type: "boolean",
      description:
        "give the model three tools (search_tools, describe_tools, execute_code) and let it write programs that call the servers' tools in a sandbox",
    },
  },
  positionals: { usage: "", min: 0, max: 0 },
  examples: [
    "chat",
    'chat -p "What is 2+3?" --yes',
    "chat --base-url http://127.0.0.1:11434/v1 --model llama3.1",
  ],
});

export const daemonDeclaration = declareCommand({
  name: "daemon",
  summary: "keep the config's servers running so bridge commands answer at once",
  flags: {
    idle: {
      type: "duration",
      value: "DURATION",
      description: `stop after this long without a request (default ${DAEMON_DEFAULT_IDLE}; 0: never)`,
    },
  },
  positionals: {
    usage: "start|stop|status|run",
    min: 1,
    max: 1,
    choices: ["start", "stop", "status", "run"],
  },
  description:
    "`start` runs a daemon for the config in the background (one per config file; a Unix socket, mode 0600, in the user's runtime folder); while it runs, call, tools, status, resources, read, prompts and prompt are answered by it (add --no-daemon to run without it). It reloads the config when the file changes and stops after --idle without a request. `status --json`: { running, pid, activeRequests, socket, config, startedAt, uptimeMs, idleMs, version, servers }. `run` is the daemon in the foreground.",
  examples: ["daemon start", "daemon start --idle 1h -c ./mcp.json", "daemon status --json", "daemon stop"],
});

export const completionDeclaration = declareCommand({
  name: "completion",
  summary: "shell completion script for bash, zsh or fish",
  flags: {},
  positionals: { usage: "bash|zsh|fish", min: 1, max: 1, choices: SHELLS },
  examples: [
    'completion bash >> ~/.bashrc   (or eval "$(mcp-bridge completion bash)")',
    "completion zsh > ~/.zsh/completions/_mcp-bridge",
    "completion fish > ~/.config/fish/completions/mcp-bridge.fish",
  ],
  description:
    "With --json: { shell, script } (the script as text), for installers that write it themselves. Completes commands, options, and the configured server and tool names (read from `mcp-bridge __complete`, which never starts a server).",
});

export const sandboxDeclaration = declareCommand({
  name: "sandbox",
  summary: "learn SERVER: run a server once under strace and propose the narrowest `sandbox` grant",
  description:
    "learn SERVER runs the stdio server SERVER once in a broad sandbox (every top-level folder read-only, the current folder writable, the whole network) under strace (Linux, a Debian package), lists its tools, makes the calls given with --call, stops it, and prints the `sandbox` block to paste into its entry: the files it read and wrote that its sandbox does not already show (its private /tmp and home, the system folders and its own program need no grant), and the hosts it looked up or connected to. Only what it did in this run is learned: name calls that exercise every path it needs. With --json: { server, sandbox, learned: { read, write, hosts }, calls: [{ tool, ok }], truncated }.",
  flags: {
    call: {
      type: "string",
      multiple: true,
      value: `TOOL='{"key":"value"}'`,
      description:
        "a tool call to make while the server is traced, its arguments as a JSON object (repeat for several)",
    },
  },
  positionals: { usage: "learn SERVER", min: 2, max: 2, choices: ["learn"] },
  examples: [
    "sandbox learn files",
    `sandbox learn files --call read_file='{"path":"./notes.txt"}'`,
    "sandbox learn files --json",
  ],
});
