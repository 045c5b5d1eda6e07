import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareVersions, parseVersion, satisfies } from "../../src/util/semver.js";

describe("semver ranges", () => {
  it.each([
    ["1.2.3", "^1.2.0", true],
    ["2.0.0", "^1.2.0", false],
    ["0.2.5", "^0.2.3", true],
    ["0.3.0", "^0.2.3", false],
    ["1.2.9", "~1.2.3", true],
    ["1.3.0", "~1.2.3", false],
    ["1.9.0", "1.x", true],
    ["2.0.0", "1.x", false],
    ["1.5.0", ">=1.0.0 <2.0.0", true],
    ["2.0.0", ">=1.0.0 <2.0.0", false],
    ["1.4.9", "1.0.0 - 1.4", true],
    ["1.5.0", "1.0.0 - 1.4", false],
    ["3.0.0", "^1 || ^3", true],
    ["1.0.0", "*", true],
    ["1.0.0-beta.2", ">=1.0.0-beta.1 <1.0.0", true],
    ["1.0.0", "1.0.0", true],
    ["1.0.1", "=1.0.0", false],
    ["not-a-version", "*", false],
  ])("%s in %s: %s", (version, range, expected) => {
    expect(satisfies(version, range)).toBe(expected);
  });

  const version = fc.tuple(fc.nat(20), fc.nat(20), fc.nat(20)).map(([a, b, c]) => `${a}.${b}.${c}`);

  it("a version is in ^v, ~v, >=v and =v, never in >v or <v", () => {
    fc.assert(
      fc.property(version, (v) => {
        for (const range of [`^${v}`, `~${v}`, `>=${v}`, v, `<=${v}`]) expect(satisfies(v, range)).toBe(true);
        for (const range of [`>${v}`, `<${v}`]) expect(satisfies(v, range)).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it("orders versions as a total order consistent with >=", () => {
    fc.assert(
      fc.property(version, version, (a, b) => {
        const [va, vb] = [parseVersion(a), parseVersion(b)];
        if (!va || !vb) throw new Error("generated versions parse");
        const order = compareVersions(va, vb);
        expect(satisfies(a, `>=${b}`)).toBe(order >= 0);
        expect(Math.sign(compareVersions(vb, va))).toBe(-Math.sign(order));
      }),
      { numRuns: 200 },
    );
  });
});
