import fc from "fast-check";
import { stringify } from "smol-toml";
import { describe, expect, it } from "vitest";
import type { ServerDefinition } from "../../src/config/model.js";
import { parseConfigText } from "../../src/config/parse.js";

const context = { env: {}, homeDir: "/home/test" };

/** Strings that stay literal through expansion (no `${`, no leading `~`). */
const literal = fc
  .string({ minLength: 1, maxLength: 20 })
  .filter((s) => !s.includes("${") && !s.startsWith("~") && s.trim() === s && s.length > 0);
// Integer-like names are left out: JavaScript objects list such keys first, whatever the file order.
const name = fc
  .string({ minLength: 1, maxLength: 16 })
  .filter((s) => s.trim().length > 0 && !s.includes("\u0000") && !/^(0|[1-9]\d*)$/.test(s));
const envName = fc.stringMatching(/^[A-Z][A-Z0-9_]{0,10}$/);

const stdioEntry = fc.record(
  {
    command: literal,
    args: fc.array(literal, { maxLength: 4 }),
    env: fc.dictionary(envName, literal, { maxKeys: 3 }),
    enabled: fc.boolean(),
    timeout: fc.integer({ min: 1, max: 600 }),
    tools: fc.record({
      include: fc.array(literal, { maxLength: 2 }),
      exclude: fc.array(literal, { maxLength: 2 }),
    }),
  },
  { requiredKeys: ["command"] },
);

const remoteEntry = fc.record(
  {
    type: fc.constantFrom("http", "sse", "streamable-http"),
    url: fc.webUrl({ validSchemes: ["http", "https"] }).filter((u) => !u.includes("${")),
    headers: fc.dictionary(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,12}$/), literal, { maxKeys: 3 }),
    startupTimeout: fc.constantFrom("500ms", "10s", "2m"),
    lazy: fc.boolean(),
  },
  { requiredKeys: ["type", "url"] },
);

const servers = fc.uniqueArray(fc.tuple(name, fc.oneof(stdioEntry, remoteEntry)), {
  selector: ([n]) => n,
  minLength: 1,
  maxLength: 5,
});

function withoutSource(list: readonly ServerDefinition[]) {
  return list.map(({ source: _source, ...rest }) => rest);
}

describe("config round-trip", () => {
  it("any valid config written as JSON and as each TOML form parses to the same model", () => {
    fc.assert(
      fc.property(servers, (entries) => {
        const map = Object.fromEntries(entries);
        const json = parseConfigText(JSON.stringify({ mcpServers: map }), "/p/mcp.json", context);
        const table = parseConfigText(stringify({ mcp: { servers: map } }), "/p/mcp.toml", context);
        const array = parseConfigText(
          stringify({ mcp: { servers: entries.map(([n, entry]) => ({ name: n, ...entry })) } }),
          "/p/array.toml",
          context,
        );
        const codex = parseConfigText(stringify({ mcp_servers: map }), "/p/config.toml", context);
        expect(json.warnings).toEqual([]);
        expect(json.servers.map((s) => s.name)).toEqual(entries.map(([n]) => n));
        expect(json.format).toBe("mcpServers-json");
        expect(table.format).toBe("toml-table");
        expect(array.format).toBe("toml-array");
        expect(codex.format).toBe("codex-toml");
        for (const other of [table, array, codex]) {
          expect(other.warnings).toEqual([]);
          expect(withoutSource(other.servers)).toEqual(withoutSource(json.servers));
        }
      }),
      { numRuns: 150 },
    );
  });
});

type Invalid = Record<string, unknown>;
const invalidEntry: fc.Arbitrary<Invalid> = fc.oneof(
  fc.constant({}),
  fc.constant({ args: ["x"] }),
  fc.record({ command: literal, transport: fc.constantFrom("carrier-pigeon", "websocket", "") }),
  fc.constant({ type: "stdio", url: "http://127.0.0.1/mcp" }),
  fc.constant({ type: "sse", command: "node" }),
  fc.record({ command: literal, args: fc.constantFrom("not-a-list", 5) }),
  fc.record({ command: literal, env: fc.constant({ KEY: { nested: true } }) }),
  fc.record({ command: fc.constantFrom(5, true, "") }),
  fc.record({ url: fc.constantFrom("not a url", "ftp://example.com/x") }),
  fc.record({ command: literal, timeout: fc.constantFrom("soon", -5) }),
  fc.record({ command: fc.constant("${MCP_BRIDGE_TEST_UNSET_VARIABLE}") }),
);

describe("invalid entries are filtered", () => {
  it("any mix of valid and invalid entries yields exactly the valid ones, each invalid one with a warning", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.tuple(
            name,
            fc.oneof(
              stdioEntry.map((e) => ({ valid: true, entry: e as Invalid })),
              invalidEntry.map((e) => ({ valid: false, entry: e })),
            ),
          ),
          { selector: ([n]) => n, minLength: 1, maxLength: 8 },
        ),
        (entries) => {
          const map = Object.fromEntries(entries.map(([n, { entry }]) => [n, entry]));
          const parsed = parseConfigText(JSON.stringify({ mcpServers: map }), "/p/mcp.json", context);
          const validNames = entries.filter(([, e]) => e.valid).map(([n]) => n);
          const invalidNames = entries.filter(([, e]) => !e.valid).map(([n]) => n);
          expect(parsed.servers.map((s) => s.name)).toEqual(validNames);
          for (const invalid of invalidNames) {
            const warning = parsed.warnings.find((w) => w.server === invalid && w.kind !== "unknown-key");
            expect(warning, `warning for ${invalid}`).toBeDefined();
            expect(warning?.message).toContain(`"${invalid}"`);
            expect(warning?.field).toBeTruthy();
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
