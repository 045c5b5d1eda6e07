import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LineFramer, type OversizedLine, StringCapper } from "../../src/transport/framing.js";
import { TopLevelIdScanner } from "../../src/transport/json-id.js";

function splitInto(buffer: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (buffer.length + 1)))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let start = 0;
  for (const point of points) {
    parts.push(buffer.subarray(start, point));
    start = point;
  }
  parts.push(buffer.subarray(start));
  return parts;
}

function capInChunks(json: string, capBytes: number, cuts: number[]): string {
  const capper = new StringCapper(capBytes);
  for (const part of splitInto(Buffer.from(json, "utf8"), cuts)) capper.write(part);
  return capper.end().toString("utf8");
}

describe("LineFramer", () => {
  it("yields every line whatever the chunking", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: "grapheme" }).filter((s) => !s.includes("\n")),
          { maxLength: 20 },
        ),
        fc.array(fc.nat(), { maxLength: 10 }),
        (lines, cuts) => {
          const seen: string[] = [];
          const framer = new LineFramer({ onLine: (line) => seen.push(line) });
          const input = Buffer.from(lines.map((line) => `${line}\n`).join(""), "utf8");
          for (const part of splitInto(input, cuts)) framer.push(part);
          expect(seen).toEqual(lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line)));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("frames alike whether a line arrives whole in one chunk or byte by byte, under any limits", () => {
    // Whole lines within the limits take a shortcut; byte by byte, every line goes through the parts.
    const line = fc.oneof(
      fc.jsonValue().map((value) => JSON.stringify({ jsonrpc: "2.0", id: 1, result: { value } })),
      fc.string({ unit: "binary", maxLength: 80 }).map((text) => text.replaceAll("\n", "")),
      fc.constantFrom("", "\r", "\uFEFF{}", `{"id":7,"result":"${"x".repeat(120)}"}`),
    );
    const run = (input: Buffer, parts: Buffer[], limits: { max?: number; cap: number; keep: number }) => {
      const events: unknown[] = [];
      const framer = new LineFramer({
        onLine: (text) => events.push(["line", text]),
        onOversized: (info) => events.push(["oversized", info]),
        ...(limits.max === undefined ? {} : { maxLineBytes: limits.max }),
        capStringsAfterBytes: limits.cap,
        stringCapBytes: 16,
        maxKeptBytes: limits.keep,
      });
      for (const part of parts) framer.push(part);
      expect(framer.bufferedBytes).toBeLessThanOrEqual(input.length);
      return events;
    };
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 12 }),
        fc.option(fc.integer({ min: 1, max: 200 })),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 400 }),
        (lines, max, cap, keep) => {
          const input = Buffer.from(lines.map((text) => `${text}\n`).join(""), "utf8");
          const limits = { ...(max === null ? {} : { max }), cap, keep };
          const bytes = [...input].map((byte) => Buffer.from([byte]));
          expect(run(input, [input], limits)).toEqual(run(input, bytes, limits));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("drops a line over the hard limit and reports the response's own id", () => {
    const seen: string[] = [];
    const oversized: OversizedLine[] = [];
    const framer = new LineFramer({
      onLine: (line) => seen.push(line),
      onOversized: (info) => oversized.push(info),
      maxLineBytes: 1000,
    });
    // id first, as most SDKs write it, and a nested "id" later: only the top-level one counts.
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 42,
      result: { text: "x".repeat(5000), item: { id: 7 } },
    });
    framer.push(Buffer.from(`${big}\n{"ok":1}\n`));
    expect(seen).toEqual(['{"ok":1}']);
    expect(oversized).toEqual([{ bytes: Buffer.byteLength(big), id: 42, limit: "line" }]);
  });

  it("bounds what it keeps of any line, not only of long strings, and goes on framing", () => {
    const seen: string[] = [];
    const oversized: OversizedLine[] = [];
    const framer = new LineFramer({
      onLine: (line) => seen.push(line),
      onOversized: (info) => oversized.push(info),
      capStringsAfterBytes: 1024,
      stringCapBytes: 64,
      maxKeptBytes: 4096,
    });
    let held = 0;
    const feed = (text: string) => {
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += 1000) {
        framer.push(bytes.subarray(i, i + 1000));
        held = Math.max(held, framer.bufferedBytes);
      }
    };
    const numbers = Array.from({ length: 50_000 }, (_, i) => i);
    feed(`${JSON.stringify({ jsonrpc: "2.0", id: "call-1", result: { structuredContent: { numbers } } })}\n`);
    feed(`${"junk without quotes ".repeat(10_000)}\n`);
    feed(`${JSON.stringify({ jsonrpc: "2.0", id: 3, result: { text: "y".repeat(100_000) } })}\n`);
    feed('{"jsonrpc":"2.0","id":4,"result":{}}\n');
    expect(oversized.map((o) => [o.id, o.limit])).toEqual([
      ["call-1", "kept"],
      [undefined, "kept"],
    ]);
    // The long string was cut while streaming; the message itself survives.
    expect(seen.map((line) => JSON.parse(line).id)).toEqual([3, 4]);
    expect(held).toBeLessThanOrEqual(4096 + 1000);
  });

  it("drops a byte order mark before a line", () => {
    const seen: string[] = [];
    const framer = new LineFramer({ onLine: (line) => seen.push(line) });
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    framer.push(bom.subarray(0, 2));
    framer.push(Buffer.concat([bom.subarray(2), Buffer.from('{"a":1}\n')]));
    expect(seen).toEqual(['{"a":1}']);
  });

  it("caps strings of a line past the threshold instead of buffering it whole", () => {
    const seen: string[] = [];
    const framer = new LineFramer({
      onLine: (line) => seen.push(line),
      capStringsAfterBytes: 1024,
      stringCapBytes: 100,
    });
    const message = {
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: "é".repeat(10_000) }] },
    };
    const line = Buffer.from(`${JSON.stringify(message)}\n`);
    for (let i = 0; i < line.length; i += 333) framer.push(line.subarray(i, i + 333));
    expect(seen).toHaveLength(1);
    const parsed = JSON.parse(seen[0] as string);
    expect(parsed.id).toBe(1);
    const text: string = parsed.result.content[0].text;
    expect(text.startsWith("é".repeat(50))).toBe(true);
    expect(text).toContain("more bytes cut from this oversized message");
    expect(text.length).toBeLessThan(200);
  });
});

describe("StringCapper", () => {
  it("keeps valid JSON valid and short strings intact, for any chunking", () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.integer({ min: 16, max: 64 }),
        (value, cuts, cap) => {
          const json = JSON.stringify(value);
          const out = capInChunks(json, cap, cuts);
          const reparsed = JSON.parse(out);
          // Compare with what JSON itself keeps (-0 becomes 0).
          value = JSON.parse(json);
          // Strings whose JSON encoding fits the cap come through unchanged.
          const walk = (original: unknown, capped: unknown): void => {
            if (typeof original === "string") {
              if (Buffer.byteLength(JSON.stringify(original)) - 2 <= cap) expect(capped).toBe(original);
              else expect(typeof capped).toBe("string");
            } else if (Array.isArray(original)) {
              for (const [i, item] of original.entries()) walk(item, (capped as unknown[])[i]);
            } else if (original && typeof original === "object") {
              for (const [key, item] of Object.entries(original)) {
                if (Buffer.byteLength(JSON.stringify(key)) - 2 <= cap)
                  walk(item, (capped as Record<string, unknown>)[key]);
              }
            } else expect(capped).toEqual(original);
          };
          walk(value, reparsed);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("never cuts inside an escape sequence or a multi-byte character", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", minLength: 50 }),
        fc.integer({ min: 16, max: 40 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (text, cap, cuts) => {
          const out = capInChunks(JSON.stringify({ text }), cap, cuts);
          const parsed = JSON.parse(out) as { text: string };
          expect(parsed.text.includes("\uFFFD") && !text.includes("\uFFFD")).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("TopLevelIdScanner", () => {
  /** A JSON value with objects holding "id" keys of their own, anywhere. */
  const withNestedIds = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      fc.jsonValue({ maxDepth: 2 }),
      fc.array(tie("value"), { maxLength: 4 }),
      fc.record({ id: fc.oneof(fc.integer(), fc.string()), inner: tie("value") }),
      fc.dictionary(fc.constantFrom("id", "ids", "i\u0064", "result", "x"), tie("value"), { maxKeys: 4 }),
    ),
  })).value;
  const responseId = fc.oneof(fc.integer(), fc.string({ unit: "grapheme", maxLength: 30 }), fc.double());

  it("finds the response's own id whatever the key order, nesting, spacing and chunking", () => {
    fc.assert(
      fc.property(
        responseId,
        withNestedIds,
        fc.constantFrom("id-first", "id-last", "id-middle"),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 12 }),
        (id, result, order, spaced, cuts) => {
          const entries: [string, unknown][] = [
            ["jsonrpc", "2.0"],
            ["result", result],
          ];
          if (order === "id-first") entries.unshift(["id", id]);
          else if (order === "id-last") entries.push(["id", id]);
          else entries.splice(1, 0, ["id", id]);
          const message = Object.fromEntries(entries);
          // Indented JSON has raw newlines only between tokens; turn them into spaces to keep one line.
          const line = spaced
            ? JSON.stringify(message, null, 1).replaceAll("\n", " ")
            : JSON.stringify(message);
          const scanner = new TopLevelIdScanner();
          for (const part of splitInto(Buffer.from(line, "utf8"), cuts)) scanner.write(part);
          const expected = JSON.parse(line).id;
          expect(scanner.id).toStrictEqual(
            typeof expected === "number" || typeof expected === "string" ? expected : undefined,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reports the same id for a line the framer drops", () => {
    fc.assert(
      fc.property(responseId, withNestedIds, fc.array(fc.nat(), { maxLength: 8 }), (id, result, cuts) => {
        const line = JSON.stringify({ jsonrpc: "2.0", id, result: { result, pad: "p".repeat(300) } });
        const reported: OversizedLine[] = [];
        const framer = new LineFramer({
          onLine: () => {},
          onOversized: (info) => reported.push(info),
          maxLineBytes: 200,
        });
        for (const part of splitInto(Buffer.from(`${line}\n`, "utf8"), cuts)) framer.push(part);
        expect(reported).toHaveLength(1);
        const expected = JSON.parse(line).id;
        // A non-finite number is written as null: no id to attribute the error to.
        expect(reported[0]?.id).toStrictEqual(expected === null ? undefined : expected);
      }),
      { numRuns: 200 },
    );
  });
});
