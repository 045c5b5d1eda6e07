import * as z from "zod";
import { registryAnswerInvalid, registryUnreachable } from "../../../errors/registry-errors.js";
import { boundedFetch } from "../../../transport/bounded-fetch.js";

/**
 * The npm registry's record of one package version (its packument's `versions[v].dist`): the
 * integrity (`sha512-…`, SRI form) `add` records and each start checks, and the tarball's address.
 */

export const NPM_REGISTRY = "https://registry.npmjs.org";
/** A packument lists every version ever published: large ones reach tens of MB. */
const MAX_PACKUMENT_BYTES = 64 * 1024 * 1024;

const distSchema = z.object({
  integrity: z.string().regex(/^sha512-[A-Za-z0-9+/]{86}==$/),
  tarball: z.string(),
});
const packumentSchema = z
  .object({ versions: z.record(z.string(), z.object({ dist: distSchema }).loose()) })
  .loose();

export interface NpmDist {
  readonly integrity: string;
  readonly tarball: string;
}

/** The address of `name`'s packument: a scoped name keeps its `@` and encodes its `/`. */
export function packumentUrl(registry: string, name: string): string {
  return `${registry.replace(/\/+$/, "")}/${name.startsWith("@") ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name)}`;
}

export async function npmDist(
  registry: string | undefined,
  name: string,
  version: string,
  fetchImpl: typeof fetch = fetch,
): Promise<NpmDist> {
  const url = packumentUrl(registry ?? NPM_REGISTRY, name);
  const bounded = boundedFetch(fetchImpl as never, {
    maxResponseBytes: MAX_PACKUMENT_BYTES,
    tooLargeCode: -32000,
  });
  let response: Response;
  let text: string;
  try {
    response = await bounded(url, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(60_000),
    });
    text = await response.text();
  } catch (error) {
    throw registryUnreachable({ url, reason: (error as Error).message });
  }
  if (!response.ok) throw registryUnreachable({ url, reason: `HTTP ${response.status}` });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw registryAnswerInvalid({ url, problem: "not JSON" });
  }
  const parsed = packumentSchema.safeParse(body);
  const dist = parsed.success ? parsed.data.versions[version] : undefined;
  const checked = dist ? distSchema.safeParse(dist.dist) : undefined;
  if (!checked?.success)
    throw registryAnswerInvalid({ url, problem: `no sha512 integrity for version ${version}` });
  const tarball = checked.data.tarball;
  if (!URL.canParse(tarball) || !/^https?:\/\//.test(tarball))
    throw registryAnswerInvalid({ url, problem: "its tarball address is not http(s)" });
  return checked.data;
}
