/**
 * Semantic versions and the range syntax of npm (`^1.2.0`, `~1.2`, `>=1 <2`, `1.x`, `1.0.0 - 1.4.0`,
 * `a || b`), for the managed policy's version ranges and the advisories' affected ranges. A small
 * reader of its own rather than a dependency: what is needed is comparison and `satisfies`, nothing
 * else of the `semver` package. Prerelease versions order before their release, by dot-separated parts
 * (numbers numerically, below words), as in semver 2.0.0; build metadata is ignored.
 */

export interface Version {
  readonly parts: readonly [number, number, number];
  readonly pre: readonly (string | number)[];
}

const VERSION = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

/** The version `text` names, or undefined when it is not one (missing minor and patch count as 0). */
export function parseVersion(text: string): Version | undefined {
  const match = VERSION.exec(text.trim());
  if (!match) return undefined;
  const pre = match[4] ? match[4].split(".").map((p) => (/^\d+$/.test(p) ? Number(p) : p)) : [];
  return { parts: [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)], pre };
}

function comparePre(a: Version["pre"], b: Version["pre"]): number {
  if (a.length === 0 || b.length === 0) return (b.length === 0 ? 0 : 1) - (a.length === 0 ? 0 : 1);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    if (typeof x === "number" && typeof y === "number") return x - y;
    if (typeof x === "number") return -1;
    if (typeof y === "number") return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/** Negative, zero or positive as `a` orders before, with or after `b`. */
export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++)
    if (a.parts[i] !== b.parts[i]) return (a.parts[i] as number) - (b.parts[i] as number);
  return comparePre(a.pre, b.pre);
}

type Comparator = (v: Version) => boolean;

/** `1`, `1.2`, `1.x`, `1.2.*`: how many leading parts are given. */
function partial(text: string): { version: Version; given: number } | undefined {
  const parts = text.replace(/^v/, "").split("-")[0]?.split(".") ?? [];
  const given = parts.findIndex((p) => p === "x" || p === "X" || p === "*");
  const count = given < 0 ? Math.min(parts.length, 3) : given;
  const version = parseVersion(count === 0 ? "0" : given < 0 ? text : parts.slice(0, count).join("."));
  return version ? { version, given: count } : undefined;
}

function bump(v: Version, index: number): Version {
  const parts = [...v.parts] as [number, number, number];
  parts[index] = (parts[index] as number) + 1;
  for (let i = index + 1; i < 3; i++) parts[i] = 0;
  return { parts, pre: ["0"] };
}

function between(low: Version | undefined, high: Version | undefined, includeHigh = false): Comparator {
  return (v) =>
    (low === undefined || compareVersions(v, low) >= 0) &&
    (high === undefined || (includeHigh ? compareVersions(v, high) <= 0 : compareVersions(v, high) < 0));
}

function comparator(token: string): Comparator | undefined {
  const match = /^(\^|~|>=|<=|>|<|=)?\s*(.+)$/.exec(token);
  if (!match) return undefined;
  const [, op = "", rest = ""] = match;
  const p = partial(rest);
  if (!p) return undefined;
  const { version: v, given } = p;
  const upper = given === 0 ? undefined : bump(v, Math.max(given - 1, 0));
  switch (op) {
    case ">=":
      return between(v, undefined);
    case ">":
      return given < 3 ? between(upper, undefined) : (x) => compareVersions(x, v) > 0;
    case "<":
      return (x) => compareVersions(x, v) < 0;
    case "<=":
      return given < 3 ? between(undefined, upper) : between(undefined, v, true);
    case "^": {
      const first = v.parts.findIndex((n) => n !== 0);
      const at = first < 0 || first >= given ? Math.max(given - 1, 0) : first;
      return between(v, given === 0 ? undefined : bump(v, at));
    }
    case "~":
      return between(v, given === 0 ? undefined : bump(v, given >= 2 ? 1 : 0));
    default:
      return given < 3 ? between(v, upper) : (x) => compareVersions(x, v) === 0;
  }
}

/** Whether `version` is in `range` (npm's syntax); false for a version or range that cannot be read. */
export function satisfies(version: string, range: string): boolean {
  const v = parseVersion(version);
  if (!v) return false;
  return range.split("||").some((alternative) => {
    const text = alternative.trim();
    const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(text);
    if (hyphen) {
      const low = parseVersion(hyphen[1] as string);
      const high = partial(hyphen[2] as string);
      if (!low || !high) return false;
      return high.given < 3
        ? between(low, bump(high.version, high.given - 1))(v)
        : between(low, high.version, true)(v);
    }
    const tokens = text
      .replace(/(\^|~|>=|<=|>|<|=)\s+/g, "$1")
      .split(/\s+/)
      .filter(Boolean);
    const comparators = (tokens.length === 0 ? ["*"] : tokens).map(comparator);
    return comparators.every((c) => c?.(v));
  });
}
