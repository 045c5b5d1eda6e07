import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readSse, SseParser } from "../../src/apps/agent/sse-events.js";

function parseAll(chunks: readonly string[]) {
  const parser = new SseParser();
  return [...chunks.flatMap((chunk) => parser.push(chunk)), ...parser.end()];
}

describe("SSE parser", () => {
  it("reads events, multi-line data, comments, event names and all three line endings", () => {
    expect(
      parseAll([": comment\nevent: a\ndata: one\ndata: two\n\ndata:x\r\n\r\ndata: y\r\rdata: z\n"]),
    ).toEqual([{ event: "a", data: "one\ntwo" }, { data: "x" }, { data: "y" }]);
  });

  it("any split of a stream into chunks yields the same events (CRLF split across chunks included)", () => {
    const line = fc.oneof(
      fc.string({ maxLength: 20 }).map((s) => `data: ${s.replace(/[\r\n]/g, "")}`),
      fc.constantFrom("event: x", ": ping", "", "data:", "retry: 10"),
    );
    const stream = fc
      .tuple(fc.array(line, { maxLength: 30 }), fc.constantFrom("\n", "\r\n", "\r"))
      .map(([lines, eol]) => lines.join(eol) + eol + eol);
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 10 }), (text, cuts) => {
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const chunks: string[] = [];
        let last = 0;
        for (const point of points) {
          chunks.push(text.slice(last, point));
          last = point;
        }
        chunks.push(text.slice(last));
        expect(parseAll(chunks)).toEqual(parseAll([text]));
      }),
      { numRuns: 300 },
    );
  });

  it("an event larger than the cap fails the stream instead of growing without end", async () => {
    const parser = new SseParser(1000);
    expect(() => parser.push(`data: ${"x".repeat(2000)}`)).toThrow(/exceeded 1000 bytes/);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode("data: ".concat("y".repeat(500))));
      },
    });
    await expect(async () => {
      for await (const _ of readSse(body, 10_000)) {
        // never completes an event
      }
    }).rejects.toThrow(/exceeded/);
  });
});
