/**
 * Per-domain egress of a sandboxed server (`"network": ["api.github.com", "*.npmjs.org"]`): the server
 * keeps its own empty network namespace (no route out), and mcp-bridge runs an HTTP proxy for it on a
 * Unix socket that is the one thing of the host's network the sandbox shows. Inside, a tiny forwarder
 * (egress-forwarder.ts) listens on the sandbox's own 127.0.0.1 and relays to that socket, and the
 * server is told HTTPS_PROXY/HTTP_PROXY. The proxy opens a connection only to a listed host: CONNECT
 * (HTTPS, any TLS) or an absolute-form plain HTTP request; anything else is answered 403.
 */

import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensurePrivateDir } from "../../util/private-path.js";

/**
 * Whether `host` is on the list: an entry matches itself (case-insensitive, a trailing dot ignored);
 * `*.example.com` matches every name below example.com, not example.com itself (list both for both).
 */
export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return allowed.some((entry) => {
    const pattern = entry.toLowerCase().replace(/\.$/, "");
    if (!pattern.startsWith("*.")) return name === pattern;
    return name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1;
  });
}

/** `host:port` of a CONNECT request (`[::1]:443` too); undefined when malformed. */
export function authority(target: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(target);
  const port = Number(match?.[3]);
  const host = match?.[1] ?? match?.[2];
  return host && port > 0 && port < 65536 ? { host, port } : undefined;
}

export interface EgressProxy {
  /** The Unix socket the sandbox is shown. */
  readonly socket: string;
  close(): void;
}

function refuse(socket: Socket, status: string, reason: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${reason}\n`);
}

const notListed = (host: string) =>
  `mcp-bridge: ${host} is not in this sandboxed server's "network" list; add it there to allow it`;

/** CONNECT: a tunnel to a listed host, opened once the host is reached. */
function tunnel(req: IncomingMessage, client: Socket, head: Buffer, allowed: readonly string[]): void {
  const target = authority(req.url ?? "");
  if (!target) {
    refuse(client, "400 Bad Request", "mcp-bridge: CONNECT needs host:port");
    return;
  }
  if (!hostAllowed(target.host, allowed)) {
    refuse(client, "403 Forbidden", notListed(target.host));
    return;
  }
  const upstream = connect(target.port, target.host);
  let open = false;
  upstream.once("connect", () => {
    open = true;
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on("error", (error: NodeJS.ErrnoException) => {
    if (!open)
      refuse(client, "502 Bad Gateway", `mcp-bridge: ${target.host}: ${error.code ?? error.message}`);
    else client.destroy();
  });
  client.on("error", () => upstream.destroy());
  client.on("close", () => upstream.destroy());
}

/** A plain-HTTP request in absolute form (`GET http://host/path`), forwarded to a listed host. */
function forward(req: IncomingMessage, res: ServerResponse, allowed: readonly string[]): void {
  let target: URL;
  try {
    target = new URL(req.url ?? "");
  } catch {
    res.writeHead(400).end("mcp-bridge: a proxy request needs an absolute http:// URL\n");
    return;
  }
  if (target.protocol !== "http:") {
    res.writeHead(400).end("mcp-bridge: only http:// is forwarded; use CONNECT for https\n");
    return;
  }
  const host = target.hostname.replace(/^\[|\]$/g, "");
  if (!hostAllowed(host, allowed)) {
    res.writeHead(403, { "Content-Type": "text/plain" }).end(`${notListed(host)}\n`);
    return;
  }
  const upstream = request(
    {
      host,
      port: target.port || 80,
      method: req.method,
      path: target.pathname + target.search,
      headers: req.headers,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on("error", (error: NodeJS.ErrnoException) => {
    if (!res.headersSent) res.writeHead(502);
    res.end(`mcp-bridge: ${host}: ${error.code ?? error.message}\n`);
  });
  req.pipe(upstream);
}

/** Starts a proxy for one sandboxed server's start, on a fresh socket in a folder only this user can enter. */
export async function startEgressProxy(allowed: readonly string[]): Promise<EgressProxy> {
  const folder = ensurePrivateDir(join(tmpdir(), `mcp-bridge-egress-${process.getuid?.() ?? "user"}`), {
    what: "sandbox egress proxy folder",
    strict: true,
  });
  const socket = join(folder, `${randomBytes(8).toString("hex")}.sock`);
  const server = createServer((req, res) => forward(req, res, allowed));
  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) =>
    tunnel(req, client, head, allowed),
  );
  server.on("clientError", (_error, client: Socket) => client.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socket, () => resolve());
  });
  // The proxy serves a server process; it never keeps the host alive by itself.
  server.unref();
  return {
    socket,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}
