import { deserializeMessage } from "@modelcontextprotocol/client";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deserializeLine } from "../../src/transport/message.js";

/** JSON object text from entries, so that keys like `__proto__` and repeated keys reach JSON.parse as written. */
const objectText = (entries: readonly (readonly [string, string])[]) =>
  `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(",")}}`;

const json = (value: unknown) => JSON.stringify(value);

/** Values near a result: objects with the keys the schema treats specially, and a few that are no object. */
const resultText = fc.oneof(
  fc
    .array(
      fc.tuple(
        fc.constantFrom("content", "isError", "_meta", "__proto__", "x", "structuredContent"),
        fc.oneof(
          fc.jsonValue().map(json),
          fc.constant('{"serverInfo":{"name":"s","version":"1"}}'),
          fc.constant('[{"type":"text","text":"3"}]'),
        ),
      ),
      { maxLength: 4 },
    )
    .map(objectText),
  fc.constantFrom("[]", "null", '"ok"', "1"),
);

const idText = fc.oneof(
  fc.integer().map(json),
  fc.string().map(json),
  fc.constantFrom("1.5", "-0", "9007199254740992", "9007199254740991", "1e300", "null", "{}", "[1]", "true"),
);

/** Messages near a successful response (the shortcut's shape) and the other kinds, with wrong and extra keys. */
const messageText = fc
  .array(
    fc.oneof(
      fc.tuple(fc.constant("jsonrpc"), fc.constantFrom('"2.0"', '"1.0"', "2", "null")),
      fc.tuple(fc.constant("id"), idText),
      fc.tuple(fc.constant("result"), resultText),
      fc.tuple(fc.constant("method"), fc.constantFrom('"tools/call"', '"notifications/progress"', "1")),
      fc.tuple(fc.constant("params"), fc.oneof(resultText, fc.constant('{"progressToken":1,"progress":1}'))),
      fc.tuple(
        fc.constant("error"),
        fc.constantFrom('{"code":-1,"message":"m"}', '{"code":1.5,"message":"m"}', "{}"),
      ),
      fc.tuple(fc.constantFrom("__proto__", "extra", "ID"), fc.jsonValue().map(json)),
    ),
    { maxLength: 6 },
  )
  .map(objectText);

/** A successful response with its keys in any order, sometimes with one more or one wrong entry. */
const responseText = fc
  .tuple(
    fc.constantFrom('"2.0"', '"2.0"', '"2.0"', '"1.0"'),
    idText,
    resultText,
    fc.option(
      fc.tuple(fc.constantFrom("__proto__", "extra", "error", "id", "result"), fc.jsonValue().map(json)),
      {
        freq: 4,
      },
    ),
  )
  .chain(([version, id, result, extra]) =>
    fc.shuffledSubarray(
      [
        ["jsonrpc", version] as const,
        ["id", id] as const,
        ["result", result] as const,
        ...(extra ? [extra] : []),
      ],
      { minLength: extra ? 4 : 3 },
    ),
  )
  .map(objectText);

/** The SDK's verdict on a line: the message, or how it failed (a JSON syntax error or another error). */
function outcome(parse: (line: string) => unknown, line: string) {
  try {
    return { ok: true, value: parse(line) };
  } catch (error) {
    return { ok: false, syntax: error instanceof SyntaxError };
  }
}

describe("deserializeLine", () => {
  it("accepts and rejects exactly what the SDK's deserializeMessage does, with the same value", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          { weight: 4, arbitrary: responseText },
          { weight: 2, arbitrary: messageText },
          { weight: 1, arbitrary: fc.jsonValue().map(json) },
          { weight: 1, arbitrary: fc.string() },
        ),
        (line) => {
          expect(outcome(deserializeLine, line)).toStrictEqual(outcome(deserializeMessage, line));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("takes the plain response of a tool call as the SDK does", () => {
    const line = '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"3"}]}}';
    expect(deserializeLine(line)).toStrictEqual(deserializeMessage(line));
    const withMeta = '{"jsonrpc":"2.0","id":7,"result":{"_meta":{"serverInfo":{"name":1}},"content":[]}}';
    expect(deserializeLine(withMeta)).toStrictEqual(deserializeMessage(withMeta));
  });
});
