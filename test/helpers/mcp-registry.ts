import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { resolve } from "node:path";
import { type LocalHttpServer, listen } from "./http-servers.js";

/**
 * An MCP Registry on 127.0.0.1 serving the official registry's published API (docs/reference/api/
 * openapi.yaml of modelcontextprotocol/registry, 2025-12-01): `GET /v0.1/servers` (and `/v0/`) with
 * `search` (substring of the name), `version=latest`, `limit` and an opaque `cursor`;
 * `GET /v0.1/servers/{serverName}/versions` (newest first) and `.../versions/{version}` (`latest`
 * too); 404 `{ "error": ... }` for an unknown server or version. Entries are ServerResponse objects
 * (`server` + `_meta`); `isLatest` is computed from publication order, as the registry does.
 */

export interface RegistryEntry {
  readonly server: { name: string; version: string; [key: string]: unknown };
  readonly _meta?: Record<string, unknown>;
}

export interface TestRegistry extends LocalHttpServer {
  /** The base address to give `--registry`. */
  readonly base: string;
  /** Publishes one more version (or entry); it becomes the latest of its name. */
  publish(server: RegistryEntry["server"]): void;
  /** Replaces what a path answers (raw text), to play a hostile registry. */
  override(path: string, body: string, status?: number): void;
  readonly requests: string[];
}

export const REAL_ENTRIES: RegistryEntry[] = (
  JSON.parse(readFileSync(resolve("test/fixtures/registry/servers.json"), "utf8")) as {
    servers: RegistryEntry[];
  }
).servers;

function send(res: ServerResponse, status: number, body: unknown) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json" });
  res.end(text);
}

export async function startTestRegistry(
  entries: readonly RegistryEntry[] = REAL_ENTRIES,
): Promise<TestRegistry> {
  const published: RegistryEntry[] = entries.map((e) => structuredClone(e));
  const overrides = new Map<string, { body: string; status: number }>();
  const requests: string[] = [];
  const latestOf = (name: string) => published.filter((e) => e.server.name === name).at(-1);
  const withMeta = (entry: RegistryEntry): RegistryEntry => ({
    server: entry.server,
    _meta: {
      ...entry._meta,
      "io.modelcontextprotocol.registry/official": {
        status: "active",
        publishedAt: "2025-09-09T12:00:00Z",
        ...(entry._meta?.["io.modelcontextprotocol.registry/official"] as object | undefined),
        isLatest: latestOf(entry.server.name) === entry,
      },
    },
  });
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    const override = overrides.get(url.pathname);
    if (override) return send(res, override.status, override.body);
    const match = /^\/v0(?:\.1)?\/servers(?:\/([^/]+)\/versions(?:\/([^/]+))?)?$/.exec(url.pathname);
    if (req.method !== "GET" || !match) return send(res, 404, { error: "Not found" });
    const [, rawName, rawVersion] = match;
    if (rawName === undefined) return list(url, res);
    const name = decodeURIComponent(rawName);
    const versions = published.filter((e) => e.server.name === name);
    if (versions.length === 0) return send(res, 404, { error: "Server not found" });
    if (rawVersion === undefined)
      return send(res, 200, {
        servers: [...versions].reverse().map(withMeta),
        metadata: { count: versions.length },
      });
    const version = decodeURIComponent(rawVersion);
    const entry = version === "latest" ? latestOf(name) : versions.find((e) => e.server.version === version);
    if (!entry) return send(res, 404, { error: "Server not found" });
    return send(res, 200, withMeta(entry));
  };
  const list = (url: URL, res: ServerResponse) => {
    const search = url.searchParams.get("search") ?? "";
    const latestOnly = url.searchParams.get("version") === "latest";
    const limit = Math.min(Number(url.searchParams.get("limit") ?? 30) || 30, 100);
    const cursor = url.searchParams.get("cursor");
    let matching = published
      .filter((e) => e.server.name.includes(search))
      .filter((e) => !latestOnly || latestOf(e.server.name) === e)
      .sort((a, b) =>
        `${a.server.name}:${a.server.version}`.localeCompare(`${b.server.name}:${b.server.version}`),
      );
    // The registry's cursor is opaque to clients: here, the name:version of the last one served.
    if (cursor) matching = matching.filter((e) => `${e.server.name}:${e.server.version}` > cursor);
    const page = matching.slice(0, limit);
    const last = page.at(-1);
    send(res, 200, {
      servers: page.map(withMeta),
      metadata: {
        count: page.length,
        ...(matching.length > limit && last
          ? { nextCursor: `${last.server.name}:${last.server.version}` }
          : {}),
      },
    });
  };
  const server = await listen(handler, "");
  return {
    ...server,
    base: server.url,
    requests,
    publish: (entry) => published.push({ server: entry }),
    override: (path, body, status = 200) => overrides.set(path, { body, status }),
  };
}
