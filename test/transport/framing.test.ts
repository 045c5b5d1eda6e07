import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LineFramer, StringCapper } from "../../src/transport/framing.js";

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

  it("drops a line over the hard limit and reports its tail for the response id", () => {
    const seen: string[] = [];
    const oversized: { bytes: number; tail: string }[] = [];
    const framer = new LineFramer({
      onLine: (line) => seen.push(line),
      onOversized: (info) => oversized.push(info),
      maxLineBytes: 1000,
    });
    const big = JSON.stringify({ result: { text: "x".repeat(5000) }, jsonrpc: "2.0", id: 42 });
    framer.push(Buffer.from(`${big}\n{"ok":1}\n`));
    expect(seen).toEqual(['{"ok":1}']);
    expect(oversized).toHaveLength(1);
    expect(oversized[0]?.bytes).toBe(Buffer.byteLength(big));
    expect(oversized[0]?.tail.endsWith('"id":42}')).toBe(true);
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
