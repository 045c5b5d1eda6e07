import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { serverInfoOf } from "../../src/connection/server-status.js";

describe("serverInfoOf (a server's self-description, untrusted)", () => {
  it("keeps the Implementation fields of the right type and drops the rest", () => {
    expect(
      serverInfoOf({
        name: "shelf",
        version: "2.1.0",
        title: "Skill Shelf",
        description: 42,
        websiteUrl: "https://skills.example/",
        icons: [{ src: "https://skills.example/i.png", sizes: ["48x48"] }, { nope: true }, "x", null],
        extra: "ignored",
      }),
    ).toEqual({
      name: "shelf",
      version: "2.1.0",
      title: "Skill Shelf",
      websiteUrl: "https://skills.example/",
      icons: [{ src: "https://skills.example/i.png", sizes: ["48x48"] }],
    });
    expect(serverInfoOf({ version: "1" })).toBeUndefined();
    expect(serverInfoOf(null)).toBeUndefined();
    expect(serverInfoOf({ name: "n" })).toEqual({ name: "n", version: "" });
  });

  it("never throws and keeps every string and list bounded, whatever the server sends", () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            name: fc.oneof(fc.string({ maxLength: 3000 }), fc.anything()),
            version: fc.anything(),
            title: fc.oneof(fc.string({ maxLength: 3000 }), fc.anything()),
            description: fc.anything(),
            websiteUrl: fc.anything(),
            icons: fc.oneof(fc.array(fc.record({ src: fc.string() }), { maxLength: 40 }), fc.anything()),
          },
          { requiredKeys: [] },
        ),
        (raw) => {
          const info = serverInfoOf(raw);
          if (info === undefined) return;
          for (const value of [info.name, info.version, info.title, info.description, info.websiteUrl]) {
            if (value !== undefined) expect(typeof value === "string" && value.length <= 2000).toBe(true);
          }
          expect((info.icons ?? []).length).toBeLessThanOrEqual(16);
        },
      ),
      { numRuns: 200 },
    );
  });
});
