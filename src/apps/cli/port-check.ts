import { createServer } from "node:net";
import { cannotListen } from "./usage-errors.js";

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
    throw cannotListen({
      address,
      reason: code === "EADDRINUSE" ? undefined : (code ?? (error as Error).message),
    });
  } finally {
    await new Promise<void>((resolve) => (probe.listening ? probe.close(() => resolve()) : resolve()));
  }
}
