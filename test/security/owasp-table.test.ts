import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * docs/security.md maps each OWASP MCP Top 10 risk to a defence and the tests that show it: every risk
 * has its entry, and every test an entry names exists (the page's code blocks run in docs.test.ts).
 */
const root = join(import.meta.dirname, "../..");
const page = readFileSync(join(root, "docs/security.md"), "utf8");

/** Each risk's entry: its `- **MCPnn …**` line and the indented lines under it. */
function entries(): { risk: string; text: string }[] {
  const found: { risk: string; text: string }[] = [];
  for (const line of page.split("\n")) {
    const risk = /^- \*\*(MCP\d\d) /.exec(line)?.[1];
    if (risk) found.push({ risk, text: "" });
    else if (found.length > 0 && line.startsWith("  "))
      (found.at(-1) as { text: string }).text += `${line}\n`;
  }
  return found;
}

describe("the OWASP MCP Top 10 list of docs/security.md", () => {
  it("has one entry per risk, MCP01 to MCP10, each with a defence, tests and what is out of scope", () => {
    const list = entries();
    expect(list.map((entry) => entry.risk)).toEqual(
      Array.from({ length: 10 }, (_, index) => `MCP${String(index + 1).padStart(2, "0")}`),
    );
    for (const { risk, text } of list) {
      for (const part of ["Defence:", "Shown by:", "Out of scope:"])
        expect(text, risk).toContain(`  - ${part}`);
    }
  });

  it("names only test files that exist", () => {
    const named = entries().flatMap(({ text }) =>
      [...text.matchAll(/`(test\/[^`]+\.test\.ts)`/g)].map((m) => m[1] ?? ""),
    );
    expect(named.length).toBeGreaterThan(10);
    for (const file of named) expect(existsSync(join(root, file)), file).toBe(true);
  });
});
