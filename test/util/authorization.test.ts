import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bearerOf } from "../../src/apps/gateway/identity/static-tokens.js";
import { presentedToken } from "../../src/auth/refresh.js";
import { authorizationCredential } from "../../src/util/authorization.js";

const token = fc.stringMatching(/^[A-Za-z0-9._~+/=-]{1,40}$/);
const space = fc.stringMatching(/^[ \t]{1,3}$/);
const casing = (scheme: string) =>
  fc
    .array(fc.boolean(), { minLength: scheme.length, maxLength: scheme.length })
    .map((upper) => [...scheme].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(""));

describe("authorizationCredential: the one parser of the Authorization header", () => {
  it("reads SCHEME TOKEN in any case and spacing, for an accepted scheme only", () => {
    fc.assert(
      fc.property(casing("Bearer"), space, token, space, (scheme, gap, value, tail) => {
        const header = `${scheme}${gap}${value}${tail}`;
        expect(authorizationCredential(header)).toBe(value);
        expect(bearerOf(header)).toBe(value);
        expect(presentedToken({ authorization: `${scheme} ${value}` })).toBe(value);
        expect(authorizationCredential(header, ["DPoP"])).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  it("anything after the token, or no token, is no credential", () => {
    fc.assert(
      fc.property(token, token, (value, more) => {
        expect(authorizationCredential(`Bearer ${value} ${more}`)).toBeUndefined();
        expect(bearerOf(`Basic ${value}`)).toBeUndefined();
      }),
      { numRuns: 100 },
    );
    expect(authorizationCredential("Bearer")).toBeUndefined();
    expect(authorizationCredential("Bearer   ")).toBeUndefined();
    expect(authorizationCredential(undefined)).toBeUndefined();
    expect(authorizationCredential(null)).toBeUndefined();
    expect(bearerOf(["Bearer first", "Bearer second"])).toBe("first");
  });

  it("the auth layer also reads DPoP tokens it presents", () => {
    expect(presentedToken({ authorization: "DPoP abc" })).toBe("abc");
    expect(presentedToken({ Authorization: "dpop abc" })).toBe("abc");
    expect(presentedToken(undefined)).toBeUndefined();
  });
});
