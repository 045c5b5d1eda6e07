import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blockText } from "../../src/results/convert.js";
import { errorText, textOf } from "../../src/util/text-of.js";

/** Parsed JSON may hold keys that shadow Object.prototype: `String()` of such an object throws. */
const hostile = fc.dictionary(
  fc.constantFrom("toString", "valueOf", "toJSON", "a"),
  fc.oneof(fc.constant(null), fc.string(), fc.integer(), fc.jsonValue()),
  { minKeys: 1 },
);
const anything = fc.oneof(
  fc.anything({ withBigInt: true, withNullPrototype: true }),
  hostile,
  fc.array(hostile, { maxLength: 3 }),
);

describe("textOf: text of any value a server sends, never a throw", () => {
  it("strings as they are, primitives as String gives them, objects as JSON", () => {
    expect(textOf("a")).toBe("a");
    expect(textOf(3)).toBe("3");
    expect(textOf(null)).toBe("null");
    expect(textOf(undefined)).toBe("undefined");
    expect(textOf({ toString: null })).toBe('{"toString":null}');
    expect(textOf({ a: 1 }, 2)).toBe('{\n  "a": 1\n}');
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(textOf(cycle)).toBe("[object Object]");
    expect(textOf({ n: 1n })).toBe("[object Object]");
    expect(errorText(new Error("boom"))).toBe("boom");
    expect(errorText({ toString: "x" })).toBe('{"toString":"x"}');
  });

  it("holds for anything, including objects whose toString or valueOf is not a function", () => {
    fc.assert(
      fc.property(anything, (value) => {
        expect(typeof textOf(value)).toBe("string");
        expect(typeof errorText(value)).toBe("string");
      }),
      { numRuns: 300 },
    );
  });

  it("a content block of any shape gives text without throwing", () => {
    const block = fc.oneof(
      anything,
      fc.record({
        type: fc.constantFrom("text", "image", "audio", "resource", "resource_link", "other"),
        text: anything,
        uri: anything,
        name: anything,
        resource: anything,
      }),
    );
    fc.assert(
      fc.property(block, (value) => {
        const text = blockText(value as never);
        expect(text === undefined || typeof text === "string").toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
