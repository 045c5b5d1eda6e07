import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { serverKeysList, settingsKeysList, withGeneratedKeyLists } from "../../src/config/docs.js";
import { SERVER_FIELDS, SERVER_KEYS, SETTINGS_FIELDS, SETTINGS_KEYS } from "../../src/config/fields.js";
import { parseConfigText } from "../../src/config/parse.js";
import { configJsonSchema } from "../../src/config/schema.js";

const context = { env: {}, homeDir: "/home/test" };
type Props = { properties: Record<string, unknown> };
const schema = configJsonSchema() as {
  properties: { settings: Props; mcpServers: { additionalProperties: Props } };
};
const serverProps = Object.keys(schema.properties.mcpServers.additionalProperties.properties);
const settingsProps = Object.keys(schema.properties.settings.properties);

/** The generated key items (`` - `key` (also ...; default ...): meaning ``), trimmed. */
const items = (text: string) =>
  text
    .split("\n")
    .filter((line) => /^- `[^`]+`( \(|:)/.test(line))
    .map((line) => line.trim());

describe("every key the loader accepts is published and documented", () => {
  it("each accepted server key and setting is a property of the JSON Schema", () => {
    expect(SERVER_KEYS.size).toBeGreaterThan(40);
    for (const key of SERVER_KEYS) expect(serverProps, key).toContain(key);
    for (const key of SETTINGS_KEYS) expect(settingsProps, key).toContain(key);
  });

  it("each schema property is accepted by the loader without an unknown-key warning", () => {
    for (const key of serverProps) expect(SERVER_KEYS.has(key) || key === "name", key).toBe(true);
    for (const key of settingsProps) expect(SETTINGS_KEYS.has(key), key).toBe(true);
  });

  it("the keys once accepted but unpublished are in the schema and docs/config.md", () => {
    const readme = readFileSync(new URL("../../docs/config.md", import.meta.url), "utf8");
    for (const key of ["call_timeout", "idle_timeout", "include", "protocolVersion"]) {
      expect(serverProps).toContain(key);
      expect(readme).toContain(`\`${key}\``);
      const parsed = parseConfigText(
        JSON.stringify({
          mcpServers: {
            s: {
              command: "x",
              [key]: key === "include" ? ["a"] : key === "protocolVersion" ? "2025-06-18" : 5,
            },
          },
        }),
        "/p/mcp.json",
        context,
      );
      expect(parsed.warnings, key).toEqual([]);
      expect(parsed.servers).toHaveLength(1);
    }
  });

  it("every spelling of every scalar server field is read (not just accepted)", () => {
    const sample = {
      boolean: true,
      duration: 7,
      timeout: 7,
      positiveInt: 7,
      negotiation: "2025-06-18",
      onDrift: "block",
    } as const;
    for (const spec of Object.values(SERVER_FIELDS)) {
      for (const key of [spec.name, ...spec.aliases]) {
        const value = sample[spec.kind as keyof typeof sample];
        // A field of remote servers only is read on a remote entry.
        const entry = spec.scope === "remote" ? { url: "https://example.test/mcp" } : { command: "x" };
        const parsed = parseConfigText(
          JSON.stringify({ mcpServers: { s: { ...entry, [key]: value } } }),
          "/p/mcp.json",
          context,
        );
        expect(parsed.warnings, key).toEqual([]);
        const server = parsed.servers[0] as unknown as Record<string, unknown>;
        const read = JSON.stringify(server);
        const expected =
          spec.kind === "boolean"
            ? spec.name === "disabled"
              ? server.enabled === false
              : server[spec.name] === true
            : spec.kind === "duration" || spec.kind === "timeout"
              ? read.includes(key.endsWith("_ms") ? ":7," : ":7000")
              : spec.kind === "negotiation"
                ? read.includes("2025-06-18")
                : spec.kind === "onDrift"
                  ? server[spec.name] === "block"
                  : server[spec.name] === 7;
        expect(expected, `${key} -> ${read}`).toBe(true);
      }
    }
  });

  it("a bad value of a setting is named and the default kept", () => {
    for (const spec of Object.values(SETTINGS_FIELDS)) {
      const parsed = parseConfigText(
        JSON.stringify({ settings: { [spec.name]: { nested: true } }, mcpServers: { s: { command: "x" } } }),
        "/p/mcp.json",
        context,
      );
      expect(
        parsed.warnings.map((w) => w.field),
        spec.name,
      ).toEqual([spec.name]);
      expect(parsed.servers).toHaveLength(1);
    }
  });
});

describe("generated documentation", () => {
  it("the key lists of docs/config.md are up to date (npm run schema)", () => {
    const doc = readFileSync(new URL("../../docs/config.md", import.meta.url), "utf8");
    expect(items(withGeneratedKeyLists(doc))).toEqual(items(doc));
    // The key and its other spellings: the item's head, before its meaning.
    const heads = items(doc).map((line) => /^- `[^`]+`(?: \([^)]*\))?/.exec(line)?.[0] ?? "");
    const documented = heads.flatMap((head) => head.match(/`[^`]+`/g) ?? []);
    for (const key of [...SERVER_KEYS, ...SETTINGS_KEYS]) expect(documented, key).toContain(`\`${key}\``);
    expect(serverKeysList()).toContain("- `idleTimeout` (also `idle_timeout`");
    expect(settingsKeysList()).toContain("- `imports`");
  });
});
