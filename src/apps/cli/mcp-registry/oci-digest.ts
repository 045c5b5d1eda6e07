import { createHash } from "node:crypto";
import { registryAnswerInvalid, registryUnreachable } from "../../../errors/registry-errors.js";
import { boundedFetch } from "../../../transport/bounded-fetch.js";

/**
 * The digest an OCI image tag points to now, read from its registry (the distribution API's
 * `GET /v2/<repository>/manifests/<tag>`, with the anonymous bearer token a registry such as Docker
 * Hub asks for), so `add` writes the image by digest: a tag moved later does not change what runs.
 */

const MANIFEST_TYPES = [
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.v2+json",
].join(", ");
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

export interface ImageReference {
  readonly host: string;
  readonly repository: string;
  readonly tag: string;
}

/** `docker.io/mcp/filesystem:1.0.2`, `ghcr.io/o/r:1`, `mcp/x:1` (Docker Hub), `127.0.0.1:5000/x:1`. */
export function parseImage(identifier: string): ImageReference {
  const at = identifier.lastIndexOf(":");
  const slash = identifier.lastIndexOf("/");
  const name = at > slash ? identifier.slice(0, at) : identifier;
  const tag = at > slash ? identifier.slice(at + 1) : "latest";
  const [first, ...rest] = name.split("/");
  const hasHost = rest.length > 0 && /[.:]|^localhost$/.test(first as string);
  const host = hasHost ? (first as string) : "docker.io";
  let repository = hasHost ? rest.join("/") : name;
  if (host === "docker.io" && !repository.includes("/")) repository = `library/${repository}`;
  return { host: host === "docker.io" ? "registry-1.docker.io" : host, repository, tag };
}

function bounded() {
  return boundedFetch(fetch as never, { maxResponseBytes: MAX_MANIFEST_BYTES, tooLargeCode: -32000 });
}

/** The anonymous token a `WWW-Authenticate: Bearer realm=…,service=…,scope=…` challenge offers. */
async function anonymousToken(challenge: string, url: string): Promise<string | undefined> {
  const fields = Object.fromEntries([...challenge.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
  if (!/^bearer/i.test(challenge) || !fields.realm || !/^https?:\/\//.test(fields.realm)) return undefined;
  const tokenUrl = new URL(fields.realm);
  if (fields.service) tokenUrl.searchParams.set("service", fields.service);
  if (fields.scope) tokenUrl.searchParams.set("scope", fields.scope);
  const response = await bounded()(tokenUrl.href, { signal: AbortSignal.timeout(30_000) });
  if (!response.ok) throw registryUnreachable({ url, reason: `token HTTP ${response.status}` });
  const body = (await response.json()) as { token?: unknown; access_token?: unknown };
  const token = body.token ?? body.access_token;
  return typeof token === "string" ? token : undefined;
}

export async function imageDigest(identifier: string): Promise<string> {
  const image = parseImage(identifier);
  // A registry on this machine is spoken to over plain HTTP, as docker does for localhost.
  const scheme = /^(127\.0\.0\.1|localhost)(:\d+)?$/.test(image.host) ? "http" : "https";
  const url = `${scheme}://${image.host}/v2/${image.repository}/manifests/${encodeURIComponent(image.tag)}`;
  const get = (token?: string) =>
    bounded()(url, {
      headers: { accept: MANIFEST_TYPES, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      signal: AbortSignal.timeout(30_000),
    });
  let response: Response;
  let body: ArrayBuffer;
  try {
    response = await get();
    if (response.status === 401) {
      const token = await anonymousToken(response.headers.get("www-authenticate") ?? "", url);
      if (token !== undefined) response = await get(token);
    }
    body = await response.arrayBuffer();
  } catch (error) {
    throw registryUnreachable({ url, reason: (error as Error).message });
  }
  if (!response.ok) throw registryUnreachable({ url, reason: `HTTP ${response.status}` });
  const computed = `sha256:${createHash("sha256").update(new Uint8Array(body)).digest("hex")}`;
  const header = response.headers.get("docker-content-digest");
  // The digest is of the manifest's bytes: a header that disagrees with them is not believed.
  if (header && header !== computed)
    throw registryAnswerInvalid({ url, problem: `its digest header ${header} is not the manifest's` });
  return computed;
}
