import type { CallToolResult } from "@modelcontextprotocol/client";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ToolTimeoutError } from "../../src/errors.js";
import { errorToolResult, toToolResult } from "../../src/results/convert.js";
import { truncateText } from "../../src/results/truncate.js";

const textBlock = fc.string({ maxLength: 200 }).map((text) => ({ type: "text" as const, text }));
const otherBlock = fc.oneof(
  fc.constant({ type: "image" as const, data: "aGVsbG8=", mimeType: "image/png" }),
  fc.constant({ type: "audio" as const, data: "aGVsbG8=", mimeType: "audio/wav" }),
  fc.constant({ type: "resource_link" as const, uri: "file:///x", name: "x" }),
  fc.constant({ type: "resource" as const, resource: { uri: "file:///y", text: "embedded" } }),
);

describe("result text (property 5)", () => {
  it("contains every text block's text, in order, when under the limit", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(textBlock, otherBlock), { maxLength: 12 }),
        fc.boolean(),
        (content, isError) => {
          const result = toToolResult({ content, isError } as CallToolResult, { maxResultChars: 1_000_000 });
          let from = 0;
          for (const block of content) {
            if (block.type !== "text") continue;
            const at = result.text.indexOf(block.text, from);
            expect(at).toBeGreaterThanOrEqual(0);
            from = at + block.text.length;
          }
          expect(result.isError).toBe(isError);
          expect(result.content).toEqual(content);
          expect(result.truncated).toBeUndefined();
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("truncation", () => {
  it("never exceeds the limit and says how much was dropped", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 3000 }), fc.integer({ min: 1, max: 2000 }), (text, max) => {
        const cut = truncateText(text, max);
        expect(cut.text.length).toBeLessThanOrEqual(Math.max(max, 0));
        if (text.length <= max) expect(cut).toEqual({ text, droppedChars: 0 });
        else {
          expect(cut.droppedChars).toBeGreaterThan(0);
          if (max >= 60) {
            expect(cut.text).toContain(`truncated: ${cut.droppedChars} more characters`);
            expect(text.startsWith(cut.text.slice(0, cut.text.indexOf("\n[... truncated")))).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("reports the original size in the result", () => {
    const result = toToolResult(
      { content: [{ type: "text", text: "y".repeat(10_000) }] },
      { maxResultChars: 5000 },
    );
    expect(result.text.length).toBeLessThanOrEqual(5000);
    expect(result.truncated).toEqual({
      originalChars: 10_000,
      droppedChars: 10_000 - result.text.indexOf("\n[..."),
    });
  });
});

describe("content blocks", () => {
  it("renders placeholders for media, resource text or a blob placeholder, links, and structured content", () => {
    const result = toToolResult(
      {
        content: [
          { type: "image", data: "A".repeat(16_800), mimeType: "image/png" },
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///a.txt", text: "inside" } },
          {
            type: "resource",
            resource: { uri: "file:///a.bin", mimeType: "application/octet-stream", blob: "AAAA" },
          },
          { type: "resource_link", uri: "https://x/y", name: "y" },
        ],
      },
      { maxResultChars: 5000 },
    );
    expect(result.text.split("\n")).toEqual([
      "[image: image/png, 12.3 KB]",
      "[audio: audio/wav, 3 B]",
      "inside",
      "[resource: file:///a.bin (application/octet-stream, 3 B)]",
      "[resource: y <https://x/y>]",
    ]);
    const structured = toToolResult({ content: [], structuredContent: { a: 1 } }, { maxResultChars: 5000 });
    expect(JSON.parse(structured.text)).toEqual({ a: 1 });
    expect(structured.structuredContent).toEqual({ a: 1 });
  });

  it("turns a failure into an `Error:` result an LLM can read", () => {
    const result = errorToolResult(
      new ToolTimeoutError('Tool "t" timed out', { server: "s", tool: "t", timeoutMs: 5 }),
    );
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^Error: Tool "t" timed out \[TOOL_TIMEOUT\]$/);
    expect(errorToolResult("").text.length).toBeGreaterThan(7);
  });
});
