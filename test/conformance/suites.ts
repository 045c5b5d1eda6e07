/**
 * The official conformance suite and what it runs on, installed on first use into .conformance/
 * (npm registry only): Node 22 (the suite needs it; our code keeps running on the current Node) and
 * each pinned suite version.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const cache = join(root, ".conformance");

export interface Suite {
  readonly label: string;
  readonly version: string;
  readonly specVersion?: string;
}

/** The stable suite and the prerelease, the latter at its default spec and at 2026-07-28. */
export const SUITES: readonly Suite[] = [
  { label: "0.1.16", version: "0.1.16" },
  { label: "0.2.0-alpha.12", version: "0.2.0-alpha.12" },
  { label: "0.2.0-alpha.12 --spec-version 2026-07-28", version: "0.2.0-alpha.12", specVersion: "2026-07-28" },
];

/** `npm install SPECS` into PREFIX, unless it has been done. */
export function npmInstall(prefix: string, ...specs: string[]): void {
  if (existsSync(join(prefix, "node_modules"))) return;
  process.stderr.write(`installing ${specs.join(" ")} into ${prefix} ...\n`);
  execFileSync("npm", ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-save", ...specs], {
    stdio: "ignore",
  });
}

export function node22(): string {
  const prefix = join(cache, "node22");
  npmInstall(prefix, "node@22");
  return join(prefix, "node_modules/.bin/node");
}

export function suiteEntry(version: string): string {
  const prefix = join(cache, `suite-${version}`);
  npmInstall(prefix, `@modelcontextprotocol/conformance@${version}`);
  return join(prefix, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
}
