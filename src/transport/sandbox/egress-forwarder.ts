/**
 * The forwarder that runs inside a sandbox with a host list (egress-proxy.ts): a CommonJS script for
 * `node -e`, so nothing but the node binary has to be shown to the sandbox. It listens on the
 * sandbox's own 127.0.0.1 (its network namespace has only a loopback), relays every connection to the
 * proxy's Unix socket, and runs the server (argv after the socket) with HTTPS_PROXY/HTTP_PROXY set,
 * passing on stop signals and ending as the server ended (the same code, or the same signal, so a
 * limit's SIGXCPU is still seen).
 */
export const FORWARDER_SCRIPT = `
const net = require("node:net");
const { spawn } = require("node:child_process");
const [socketPath, command, ...args] = process.argv.slice(1);
const relay = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  const end = () => { client.destroy(); upstream.destroy(); };
  client.on("error", end); upstream.on("error", end); client.on("close", end); upstream.on("close", end);
  client.pipe(upstream); upstream.pipe(client);
});
relay.listen(0, "127.0.0.1", () => {
  const url = "http://127.0.0.1:" + relay.address().port;
  const env = { ...process.env, HTTPS_PROXY: url, HTTP_PROXY: url, https_proxy: url, http_proxy: url,
    npm_config_proxy: url, npm_config_https_proxy: url, NODE_USE_ENV_PROXY: "1",
    MCP_BRIDGE_EGRESS_PROXY: url };
  delete env.NO_PROXY; delete env.no_proxy;
  const child = spawn(command, args, { stdio: "inherit", env });
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("error", (error) => { process.stderr.write("Error: cannot run " + command + ": " + error.code + "\\n"); process.exit(127); });
  child.on("exit", (code, signal) => {
    relay.close();
    if (signal === null) process.exit(code ?? 1);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
});
`;

/** `node` arguments that run the forwarder for `socket`, then `command args`. */
export function forwarderArgs(socket: string, command: string, args: readonly string[]): string[] {
  // A small heap: it only relays bytes.
  return ["--max-old-space-size=32", "-e", FORWARDER_SCRIPT, socket, command, ...args];
}
