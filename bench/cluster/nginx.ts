/**
 * nginx in front of local replicas, configured from the shipped example (deploy/nginx/mcp-bridge.conf)
 * rather than from a copy: its `mcp_bridge_stateless` upstream block (the replicas' addresses swapped
 * in, their parameters kept) and its `location /mcp` block, under a local `server` on 127.0.0.1
 * without TLS. What the bench and the cluster test measure is therefore what the example ships.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { UPSTREAM_HEADER } from "./modern-call.js";
import { freePort, type ProcessGroup, REPO_ROOT, waitFor } from "./processes.js";

export const SHIPPED_NGINX_CONF = join(REPO_ROOT, "deploy/nginx/mcp-bridge.conf");

/** The body of the first `HEAD {` … matching `}` block in `conf`. */
export function blockBody(conf: string, head: string): string {
  const start = conf.indexOf(`${head} {`);
  if (start < 0) throw new Error(`no "${head} {" block in ${SHIPPED_NGINX_CONF}`);
  let depth = 0;
  for (let i = conf.indexOf("{", start); i < conf.length; i++) {
    if (conf[i] === "{") depth++;
    else if (conf[i] === "}" && --depth === 0) return conf.slice(conf.indexOf("{", start) + 1, i);
  }
  throw new Error(`unterminated "${head}" block in ${SHIPPED_NGINX_CONF}`);
}

/**
 * The shipped upstream block `name` with its `server` lines replaced by `addresses` (host:port), each
 * keeping the parameters (max_fails, fail_timeout) of the shipped first server line.
 */
export function upstreamFor(conf: string, name: string, addresses: readonly string[]): string {
  const body = blockBody(conf, `upstream ${name}`);
  const lines = body.split("\n").filter((line) => line.trim() !== "" && !line.trim().startsWith("#"));
  const firstServer = lines.find((line) => line.trim().startsWith("server "));
  const parameters = firstServer?.trim().replace(/;$/, "").split(/\s+/).slice(2).join(" ") ?? "";
  const others = lines.filter((line) => !line.trim().startsWith("server "));
  const servers = addresses.map((address) => `    server ${address}${parameters ? ` ${parameters}` : ""};`);
  return `upstream ${name} {\n${[...servers, ...others.map((line) => `    ${line.trim()}`)].join("\n")}\n}`;
}

/** A complete nginx.conf for a foreground nginx under `prefix`, listening on 127.0.0.1:`port`. */
export function localNginxConf(
  shipped: string,
  prefix: string,
  port: number,
  addresses: readonly string[],
): string {
  const location = blockBody(shipped, "location /mcp");
  const pass = /proxy_pass\s+http:\/\/(\w+)/.exec(location)?.[1];
  if (!pass) throw new Error(`no proxy_pass in the location /mcp block of ${SHIPPED_NGINX_CONF}`);
  return `worker_processes 1;
daemon off;
pid ${prefix}/nginx.pid;
error_log ${prefix}/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
${upstreamFor(shipped, pass, addresses)}
  server {
    listen 127.0.0.1:${port};
    # Which replica had each request, failed ones too: the kill scenario checks only the killed one's are lost.
    add_header ${UPSTREAM_HEADER} $upstream_addr always;
    location /mcp {${location}}
  }
}
`;
}

/** Starts nginx balancing `addresses` as the shipped example does; resolves with its /mcp URL. */
export async function startNginx(group: ProcessGroup, addresses: readonly string[]): Promise<URL> {
  const port = await freePort();
  const prefix = join(group.work, "nginx");
  mkdirSync(join(prefix, "logs"), { recursive: true });
  const confPath = join(prefix, "nginx.conf");
  writeFileSync(confPath, localNginxConf(readFileSync(SHIPPED_NGINX_CONF, "utf8"), prefix, port, addresses));
  const nginx = group.spawn("nginx", ["-p", prefix, "-c", confPath]);
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  await waitFor(
    "nginx to listen",
    async () => {
      if (nginx.exitCode !== null) throw new Error(`nginx exited with ${nginx.exitCode}: see ${prefix}/logs`);
      return (await fetch(url, { method: "GET" }).catch(() => undefined)) !== undefined;
    },
    10_000,
  );
  return url;
}
