/**
 * Set by `serve`, `attach` and the daemon (to the process id that set it) and passed to every stdio
 * server they start, sandboxed or not, whatever the entry's `inheritEnv`: a `serve`, `attach` or daemon
 * that finds it was started, through some chain of configs, under a bridge, and refuses to run, so
 * the bridge never nests in itself (docs/hosts.md).
 */
export const SERVING_ENV = "MCP_BRIDGE_SERVING";
