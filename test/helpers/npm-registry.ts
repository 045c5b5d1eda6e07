import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixturePath } from "../fixtures/servers/index.js";
import { type LocalHttpServer, listen } from "./http-servers.js";

/**
 * A local npm registry on 127.0.0.1: the two documents the npm client reads to install a version,
 * the packument (`GET /<name>`, `versions[v].dist.{tarball,integrity,shasum}`, `dist-tags.latest`)
 * and the tarball (`GET /-/<file>.tgz`). Verdaccio would do the same with some hundred dependencies;
 * the npm and npx clients talking to this one are the real ones. `publish` of a version already
 * published replaces its tarball (with a packument to match): the tampered republish that a client
 * trusting the registry's own integrity would accept.
 */

export interface NpmRegistry extends LocalHttpServer {
  readonly base: string;
  publish(name: string, version: string, tarball: Uint8Array): { integrity: string; tarball: string };
  readonly tarballRequests: string[];
}

export async function startNpmRegistry(): Promise<NpmRegistry> {
  const packages = new Map<
    string,
    Map<string, { file: string; bytes: Uint8Array; integrity: string; shasum: string }>
  >();
  const tarballRequests: string[] = [];
  let base = "";
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://127.0.0.1").pathname);
    if (path.startsWith("/-/")) {
      // npm also posts its audit here (`/-/npm/v1/security/advisories/bulk`): only tarballs count.
      if (path.endsWith(".tgz")) tarballRequests.push(path);
      const file = path.slice(3);
      for (const versions of packages.values())
        for (const version of versions.values())
          if (version.file === file) {
            res.writeHead(200, { "content-type": "application/octet-stream" });
            return res.end(version.bytes);
          }
      res.writeHead(404).end();
      return;
    }
    const name = path.slice(1);
    const versions = packages.get(name);
    if (!versions) {
      res.writeHead(404, { "content-type": "application/json" });
      return res.end('{"error":"not found"}');
    }
    const list = [...versions.keys()];
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        name,
        "dist-tags": { latest: list.at(-1) },
        versions: Object.fromEntries(
          [...versions].map(([version, v]) => [
            version,
            {
              name,
              version,
              dist: { tarball: `${base}/-/${v.file}`, integrity: v.integrity, shasum: v.shasum },
            },
          ]),
        ),
      }),
    );
  };
  const server = await listen(handler, "");
  base = server.url;
  return {
    ...server,
    base,
    tarballRequests,
    publish(name, version, bytes) {
      const versions = packages.get(name) ?? new Map();
      packages.set(name, versions);
      const file = `${name.replace("/", "-").replace("@", "")}-${version}.tgz`;
      const integrity = `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
      const shasum = createHash("sha1").update(bytes).digest("hex");
      versions.set(version, { file, bytes, integrity, shasum });
      return { integrity, tarball: `${base}/-/${file}` };
    },
  };
}

/**
 * `npm pack` of a package whose bin runs the `normal` fixture server (built with the SDK), with
 * `marker` written into it so two packs of one version differ. No dependencies: npx installs it from
 * the tarball alone.
 */
export function packFixtureServer(name: string, version: string, marker = ""): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), "mcp-bridge-pack-"));
  try {
    const pkg = join(dir, "pkg");
    mkdirSync(pkg);
    const bin = name.split("/").pop() as string;
    writeFileSync(
      join(pkg, "package.json"),
      JSON.stringify({ name, version, type: "module", bin: { [bin]: "server.js" } }),
    );
    writeFileSync(
      join(pkg, "server.js"),
      `#!/usr/bin/env node\n// ${marker}\nawait import(${JSON.stringify(fixturePath("normal"))});\n`,
    );
    chmodSync(join(pkg, "server.js"), 0o755);
    const packed = spawnSync("npm", ["pack", "--pack-destination", dir], {
      cwd: pkg,
      encoding: "utf8",
      env: { ...process.env, npm_config_cache: join(dir, "cache") },
    });
    if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
    const tgz = readdirSync(dir).find((file) => file.endsWith(".tgz")) as string;
    return readFileSync(join(dir, tgz));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
