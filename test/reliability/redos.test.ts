import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bridge } from "../../src/bridge/api.js";
import { startBridge } from "../../src/bridge/bridge.js";
import { validateArguments } from "../../src/registry/validate.js";
import { safeJsonSchemaValidator } from "../../src/util/schema-engine.js";
import { stdioEntry } from "../fixtures/servers/index.js";

/**
 * A server's schema is untrusted input. With a backtracking regex engine, each of these checks on a
 * 40-character string takes longer than the test's whole time limit (2^40 steps): they finish only
 * because every pattern runs on RE2.
 */
const victim = `${"a".repeat(40)}!`;

let bridge: Bridge;
beforeAll(async () => {
  bridge = await startBridge({ servers: { evil: stdioEntry("redos-schemas") } });
}, 30_000);
afterAll(() => bridge?.close());

describe("schemas with catastrophic-backtracking patterns", () => {
  it("validateArguments answers at once and reports the mismatch", async () => {
    const result = await bridge.call(
      "evil/takes_pattern",
      { s: victim },
      { validateArguments: true, onError: "result" },
    );
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/INVALID_ARGUMENTS/);
    expect(result.text).toMatch(/pattern/);
    expect(
      validateArguments({ type: "object", properties: { s: { pattern: "^(a+)+$" } } }, { s: "aaaa" }),
    ).toEqual([]);
  }, 10_000);

  it("the SDK's check of structured content against the server's outputSchema is safe too", async () => {
    const result = await bridge.call("evil/returns_pattern", {}, { onError: "result" });
    // The output does not match the server's own schema: reported as an error, promptly.
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/output|schema|pattern/i);
  }, 10_000);

  it("a pattern RE2 cannot express is not checked (never run on a backtracking engine)", () => {
    const validate = safeJsonSchemaValidator.getValidator({ type: "string", pattern: "^(?=a)(a+)+$" });
    expect(validate(victim).valid).toBe(true);
    const checked = safeJsonSchemaValidator.getValidator({ type: "string", pattern: "^b" });
    expect(checked("abc")).toMatchObject({ valid: false, errorMessage: expect.stringContaining("pattern") });
  });
});
