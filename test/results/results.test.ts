import type { CallToolResult } from "@modelcontextprotocol/client";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ToolTimeoutError } from "../../src/errors/index.js";
import { errorToolResult, toToolResult } from "../../src/results/convert.js";
import { truncateText, truncationMarker } from "../../src/results/truncate.js";

const textBlock = fc.string({ maxLength: 200 }).map((text) => ({ type: "text" as const, text }));
const otherBlock = fc.oneof(
  fc.constant({ type: "image" as const, data: "aGVsbG8=", mimeType: "image/png" }),
  fc.constant({ type: "audio" as const, data: "aGVsbG8=", mimeType: "audio/wav" }),
  fc.constant({ type: "resource_link" as const, uri: "file:///x", name: "x" }),
  fc.constant({ type: "resource" as const, resource: { uri: "file:///y", text: "embedded" } }),
);

describe("result text", () => {
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
          // Some of the text is kept, not only the marker.
          if (max >= 2) expect(text.length - cut.droppedChars).toBeGreaterThan(0);
          if (max >= 60) {
            expect(cut.text).toContain(`truncated: ${cut.droppedChars} more characters`);
            expect(text.startsWith(cut.text.slice(0, cut.text.indexOf("\n[... truncated")))).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("keeps the head, cuts a 5 MB text in one slice, and never splits a surrogate pair", () => {
    const huge = "a".repeat(5 * 1024 * 1024);
    const cut = truncateText(huge, 5000);
    expect(cut.text.length).toBeLessThanOrEqual(5000);
    expect(cut.text).toBe(
      `${"a".repeat(5000 - truncationMarker(cut.droppedChars).length)}${truncationMarker(cut.droppedChars)}`,
    );
    expect(cut.droppedChars).toBe(huge.length - cut.text.indexOf("\n[..."));
    const emoji = "😀".repeat(100);
    for (let max = 40; max < 120; max++) {
      const { text } = truncateText(emoji, max);
      const head = text.slice(0, text.indexOf("\n[..."));
      expect(head.length % 2).toBe(0);
    }
  });

  it("treats a limit that is not a positive number as no limit, and fits tiny limits", () => {
    expect(truncateText("abc", 0)).toEqual({ text: "abc", droppedChars: 0 });
    expect(truncateText("abc", Number.NaN)).toEqual({ text: "abc", droppedChars: 0 });
    expect(truncateText("abc", Number.POSITIVE_INFINITY)).toEqual({ text: "abc", droppedChars: 0 });
    // A limit smaller than the full marker keeps text under a shorter one, never only the marker.
    expect(truncateText("x".repeat(100), 10)).toEqual({ text: `${"x".repeat(9)}…`, droppedChars: 91 });
    expect(truncateText("x".repeat(100), 30)).toEqual({
      text: `${"x".repeat(19)}…[81 more]`,
      droppedChars: 81,
    });
    expect(truncateText("x".repeat(100), 1)).toEqual({ text: "…", droppedChars: 100 });
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

  it("never throws on malformed blocks, and says so for unknown ones", () => {
    const result = toToolResult(
      {
        content: [
          { type: "text", text: "ok" },
          null,
          { type: "image" },
          { type: "resource", resource: { uri: "mem://x" } },
          { type: "video", data: "..." },
          { type: "resource_link", uri: "u" },
        ],
      } as never,
      { maxResultChars: 5000 },
    );
    expect(result.text.split("\n")).toEqual([
      "ok",
      "[null content]",
      "[image: unknown type]",
      "[resource: mem://x]",
      "[video content]",
      "[resource: link <u>]",
    ]);
    expect(toToolResult({} as CallToolResult, { maxResultChars: 10 })).toEqual({
      text: "",
      content: [],
      isError: false,
    });
  });

  it("renders structuredContent only when there is no text block, and keeps it whole", () => {
    const withText = toToolResult(
      { content: [{ type: "text", text: "21.5 C" }], structuredContent: { t: 21.5 } },
      { maxResultChars: 5000 },
    );
    expect(withText.text).toBe("21.5 C");
    expect(withText.structuredContent).toEqual({ t: 21.5 });
    const big = { rows: Array.from({ length: 500 }, (_, i) => ({ i })) };
    const cut = toToolResult({ content: [], structuredContent: big }, { maxResultChars: 200 });
    expect(cut.text.length).toBeLessThanOrEqual(200);
    expect(cut.structuredContent).toBe(big);
  });
});

describe("error results", () => {
  it("turns a typed failure into `Error: <message> <advice> [CODE]`", () => {
    const result = errorToolResult(
      new ToolTimeoutError('Tool "t" on server "s" timed out after 5 ms', {
        server: "s",
        tool: "t",
        timeoutMs: 5,
      }),
      { server: "s", tool: "t" },
    );
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(
      /^Error: Tool "t" on server "s" timed out after 5 ms\. .*retry.* \[TOOL_TIMEOUT\]$/,
    );
    expect(result.content).toEqual([{ type: "text", text: result.text }]);
  });

  it("names server and tool for untyped failures, and is never empty", () => {
    expect(errorToolResult(new Error("boom"), { server: "s", tool: "t" }).text).toBe(
      'Error: The call to tool "t" on server "s" failed: boom. [ERROR]',
    );
    expect(errorToolResult("", { tool: "t" }).text).toBe(
      'Error: The call to tool "t" failed without a message. [ERROR]',
    );
    expect(errorToolResult(undefined).text).toBe("Error: The call failed without a message. [ERROR]");
    expect(errorToolResult({ message: "plain object" }).text).toBe("Error: plain object. [ERROR]");
    expect(errorToolResult({ reason: 1 }).text).toContain('"reason": 1');
  });

  it("gives a silent isError result a message", () => {
    const result = toToolResult({ content: [], isError: true }, { maxResultChars: 100 });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^Error: /);
  });
});
