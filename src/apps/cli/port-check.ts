import { createServer } from "node:net";
import { usageError } from "./parse-arguments.js";

/**
 * Fails when HOST:PORT cannot be listened on (in use, not an address of this machine), before any
 * server is started: `serve --http` would otherwise start every upstream server, then fail to bind.
 * Port 0 (any free port) always passes. A port taken between this check and the gateway's own bind
 * still fails there.
 */
export async function checkPortFree(listen: { host: string; port: number }): Promise<void> {
  if (listen.port === 0) return;
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once("error", reject);
      probe.listen({ host: listen.host, port: listen.port, exclusive: true }, () => resolve());
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const address = `${listen.host.includes(":") ? `[${listen.host}]` : listen.host}:${listen.port}`;
    throw usageError(
      code === "EADDRINUSE"
        ? `Cannot listen on ${address}: the port is in use. Stop what uses it or pick another port with --http [HOST:]PORT (0 picks a free one).`
        : `Cannot listen on ${address} (${code ?? (error as Error).message}). Pick another address with --http [HOST:]PORT.`,
    );
  } finally {
    await new Promise<void>((resolve) => (probe.listening ? probe.close(() => resolve()) : resolve()));
  }
}
