import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ServerOrigin } from "../config/model.js";
import { packageFetchFailed, packageIntegrityMismatch } from "../errors/registry-errors.js";
import { userCacheDir } from "../util/cache-dir.js";
import { ensurePrivateDir, replaceFileAtomic } from "../util/private-path.js";
import { boundedFetch } from "./bounded-fetch.js";
import type { SpawnSpec } from "./spawn-server.js";

/**
 * The npm package of a server installed from a registry, checked before every start against the
 * integrity recorded when it was added, and run from the bytes that were checked.
 *
 * `npx pkg@1.2.3` would download the tarball again and trust the npm registry's own packument for its
 * integrity: a registry that serves other bytes for that version (a republished or tampered tarball,
 * a compromised mirror) is believed. So mcp-bridge resolves the tarball itself: it takes the copy in
 * its cache (`<cache>/packages/npm/<sha512 hex>.tgz`, named by its digest, in a private folder) when
 * that file's sha512 is still the recorded one, else downloads the recorded tarball address (bounded in
 * size), hashes it, and refuses the start when the digest differs, saying what changed. Only then is
 * the verified file given to npx as `file:<path>` in place of `pkg@1.2.3`, so npx never fetches the
 * package itself. Its dependencies are still resolved by npm from the package's own manifest (as any
 * `npx` does): the integrity pins the package's code, not its dependency tree.
 */

/** A tarball larger than this is cut off and refused (the largest MCP servers on npm are a few MB). */
const MAX_TARBALL_BYTES = 256 * 1024 * 1024;

export function sri(bytes: Uint8Array): string {
  return `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
}

function hexOf(integrity: string): string {
  return Buffer.from(integrity.slice("sha512-".length), "base64").toString("hex");
}

async function download(url: string): Promise<{ status: number; bytes: Uint8Array }> {
  const bounded = boundedFetch(fetch as never, { maxResponseBytes: MAX_TARBALL_BYTES, tooLargeCode: -32000 });
  const response = await bounded(url, { signal: AbortSignal.timeout(120_000), redirect: "follow" });
  return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) };
}

function cached(file: string, integrity: string): boolean {
  try {
    return sri(readFileSync(file)) === integrity;
  } catch {
    return false;
  }
}

/**
 * The spawn spec with the npm package spec replaced by the verified local tarball; throws
 * PACKAGE_REFUSED when the package cannot be verified.
 */
export async function verifiedNpmSpec(
  server: string,
  origin: ServerOrigin,
  spec: SpawnSpec,
  env: Readonly<Record<string, string | undefined>>,
): Promise<SpawnSpec> {
  const pkg = origin.package;
  if (pkg?.type !== "npm" || pkg.integrity === undefined) return spec;
  const name = `${pkg.identifier}@${pkg.version}`;
  const at = spec.args.indexOf(name);
  const cacheRoot = userCacheDir(env);
  if (at < 0 || pkg.tarball === undefined || cacheRoot === undefined)
    throw packageFetchFailed({
      server,
      pkg: name,
      reason:
        at < 0
          ? `its command line no longer runs ${name}; add it again with \`mcp-bridge add ${origin.name}@${origin.version} --force\``
          : pkg.tarball === undefined
            ? "no tarball address was recorded"
            : "there is no cache folder (set HOME or MCP_BRIDGE_CACHE_DIR)",
    });
  const dir = ensurePrivateDir(join(cacheRoot, "packages", "npm"), { what: "package cache" });
  const file = join(dir, `${hexOf(pkg.integrity)}.tgz`);
  if (!cached(file, pkg.integrity)) {
    let got: { status: number; bytes: Uint8Array };
    try {
      got = await download(pkg.tarball);
    } catch (error) {
      throw packageFetchFailed({ server, pkg: name, reason: `${pkg.tarball}: ${(error as Error).message}` });
    }
    if (got.status !== 200)
      throw packageFetchFailed({ server, pkg: name, reason: `${pkg.tarball}: HTTP ${got.status}` });
    const bytes = got.bytes;
    const actual = sri(bytes);
    if (actual !== pkg.integrity)
      throw packageIntegrityMismatch({
        server,
        pkg: name,
        recorded: pkg.integrity,
        actual,
        source: pkg.tarball,
      });
    replaceFileAtomic(file, bytes, { private: true, what: "package cache" });
  }
  const args = [...spec.args];
  args[at] = `file:${file}`;
  return { ...spec, args };
}
