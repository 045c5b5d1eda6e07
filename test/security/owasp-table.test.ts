import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * docs/security.md maps each OWASP MCP Top 10 risk to a defence and the tests that show it: every risk
 * has its row, and every test the table names exists (the page's code blocks run in docs.test.ts).
 */
const root = join(import.meta.dirname, "../..");
const page = readFileSync(join(root, "docs/security.md"), "utf8");

describe("the OWASP MCP Top 10 table of docs/security.md", () => {
  const rows = page.split("\n").filter((line) => /^\| MCP\d\d /.test(line));

  it("has one row per risk, MCP01 to MCP10, each with a defence, tests and what is out of scope", () => {
    expect(rows.map((row) => row.slice(2, 7))).toEqual(
      Array.from({ length: 10 }, (_, index) => `MCP${String(index + 1).padStart(2, "0")}`),
    );
    for (const row of rows) expect(row.split(" | ").filter((cell) => cell.trim().length > 0)).toHaveLength(4);
  });

  it("names only test files that exist", () => {
    const named = rows.flatMap((row) =>
      [...row.matchAll(/`(test\/[^`]+\.test\.ts)`/g)].map((m) => m[1] ?? ""),
    );
    expect(named.length).toBeGreaterThan(10);
    for (const file of named) expect(existsSync(join(root, file)), file).toBe(true);
  });
});
