import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { advisoriesUnreadable } from "../errors/registry-errors.js";
import { compareVersions, parseVersion } from "../util/semver.js";

/**
 * Known-bad packages from OSV advisories (https://ossf.github.io/osv-schema/): a JSON file holding one
 * advisory, a list of them or `{ "vulns": [...] }`, or a folder of such files (the layout of OSV's
 * per-ecosystem exports, unzipped). Only malware advisories count here: an id or alias starting with
 * `MAL-` (OpenSSF's malicious-packages feed); a package they name is refused at `add` and before every
 * start. Read from disk only: the user or organisation provides the file (and refreshes it with
 * `mcp-bridge advisories refresh SOURCE`); nothing is fetched on its own.
 */

export interface Advisory {
  readonly id: string;
  readonly summary: string;
  readonly affected: readonly {
    readonly ecosystem: string;
    readonly name: string;
    readonly versions: readonly string[];
    readonly ranges: readonly { readonly type: string; readonly events: readonly Record<string, string>[] }[];
  }[];
}

/** A folder may hold an ecosystem's whole export (~200k files): the walk stops there. */
const MAX_FILES = 500_000;
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** The OSV ecosystem of a registry package type. */
const ECOSYSTEMS: Record<string, string> = { npm: "npm", pypi: "PyPI", nuget: "NuGet" };

function normalizedName(ecosystem: string, name: string): string {
  // PyPI names compare after PEP 503 normalization; NuGet ids compare without case.
  if (ecosystem === "PyPI") return name.toLowerCase().replace(/[-_.]+/g, "-");
  if (ecosystem === "NuGet") return name.toLowerCase();
  return name;
}

function isMalware(record: Record<string, unknown>): boolean {
  const ids = [record.id, ...(Array.isArray(record.aliases) ? record.aliases : [])];
  return ids.some((id) => typeof id === "string" && id.startsWith("MAL-"));
}

function advisoryOf(record: unknown): Advisory | undefined {
  if (!record || typeof record !== "object") return undefined;
  const r = record as Record<string, unknown>;
  if (typeof r.id !== "string" || !isMalware(r) || !Array.isArray(r.affected)) return undefined;
  const affected = r.affected.flatMap((item: unknown) => {
    const a = (item ?? {}) as {
      package?: { ecosystem?: unknown; name?: unknown };
      versions?: unknown;
      ranges?: unknown;
    };
    const ecosystem = a.package?.ecosystem;
    const name = a.package?.name;
    if (typeof ecosystem !== "string" || typeof name !== "string") return [];
    const versions = Array.isArray(a.versions)
      ? a.versions.filter((v): v is string => typeof v === "string")
      : [];
    const ranges = Array.isArray(a.ranges)
      ? a.ranges.filter(
          (x): x is Advisory["affected"][number]["ranges"][number] =>
            typeof x?.type === "string" && Array.isArray(x?.events),
        )
      : [];
    return [{ ecosystem: ecosystem.split(":")[0] as string, name, versions, ranges }];
  });
  return { id: r.id, summary: typeof r.summary === "string" ? r.summary : "", affected };
}

/** The malware advisories of one JSON text (a record, a list, or `{ vulns }`). */
export function parseAdvisories(text: string): Advisory[] {
  const data = JSON.parse(text) as unknown;
  const records = Array.isArray(data)
    ? data
    : data && typeof data === "object" && Array.isArray((data as { vulns?: unknown }).vulns)
      ? (data as { vulns: unknown[] }).vulns
      : [data];
  return records.map(advisoryOf).filter((a): a is Advisory => a !== undefined);
}

function jsonFiles(dir: string, found: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (found.length >= MAX_FILES) return;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) jsonFiles(path, found);
    else if (entry.isFile() && entry.name.endsWith(".json")) found.push(path);
  }
}

/** Every malware advisory at `path` (a file or a folder); throws when it cannot be read. */
export function loadAdvisories(path: string): Advisory[] {
  let files: string[];
  try {
    files = lstatSync(path).isDirectory() ? [] : [path];
    if (files.length === 0) jsonFiles(path, files);
  } catch (error) {
    throw advisoriesUnreadable({ path, reason: (error as NodeJS.ErrnoException).code ?? "error" });
  }
  return files.flatMap((file) => {
    try {
      if (lstatSync(file).size > MAX_FILE_BYTES)
        throw advisoriesUnreadable({ path: file, reason: "over 64 MB" });
      return parseAdvisories(readFileSync(file, "utf8"));
    } catch (error) {
      if ((error as { code?: string }).code === "CONFIG_INVALID") throw error;
      throw advisoriesUnreadable({
        path: file,
        reason: error instanceof SyntaxError ? "not JSON" : "unreadable",
      });
    }
  });
}

/** Whether a SEMVER/ECOSYSTEM range's events put `version` in an affected interval. */
function inRange(version: string, events: readonly Record<string, string>[]): boolean {
  const v = parseVersion(version);
  if (!v) return false;
  let affected = false;
  for (const event of events) {
    const [kind, at] = Object.entries(event)[0] ?? [];
    if (at === undefined) continue;
    const bound = at === "0" ? undefined : parseVersion(at);
    if (kind === "introduced" && (bound === undefined || compareVersions(v, bound) >= 0)) affected = true;
    else if (kind === "fixed" && bound && compareVersions(v, bound) >= 0) affected = false;
    else if (kind === "last_affected" && bound && compareVersions(v, bound) > 0) affected = false;
  }
  return affected;
}

/** The malware advisory naming this package version, if any. */
export function malwareAdvisory(
  advisories: readonly Advisory[],
  pkg: { readonly type: string; readonly identifier: string; readonly version: string },
): Advisory | undefined {
  const ecosystem = ECOSYSTEMS[pkg.type];
  if (ecosystem === undefined) return undefined;
  const name = normalizedName(ecosystem, pkg.identifier);
  return advisories.find((advisory) =>
    advisory.affected.some(
      (a) =>
        a.ecosystem === ecosystem &&
        normalizedName(ecosystem, a.name) === name &&
        // A malware advisory without versions or ranges names the whole package.
        ((a.versions.length === 0 && a.ranges.length === 0) ||
          a.versions.includes(pkg.version) ||
          a.ranges.some((r) => r.type !== "GIT" && inRange(pkg.version, r.events))),
    ),
  );
}
