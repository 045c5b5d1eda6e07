import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { startBridge } from "../../src/index.js";
import { fixturePath } from "../fixtures/servers/index.js";

// The fixture sits beside the others in dist/; located through a known one to keep the shared name list untouched.
const asksForSecret = () => join(dirname(fixturePath("normal")), "asks-for-secret.js");

describe("elicitation", () => {
  it("without a handler, a request is declined even when the server's schema supplies every default", async () => {
    await using bridge = await startBridge({
      servers: { asker: { command: process.execPath, args: [asksForSecret()] } },
      env: {},
    });
    const result = await bridge.call("asker/login", {});
    expect(JSON.parse(result.text)).toEqual({ action: "decline" });
  }, 20_000);

  it("a host handler answers and sees the server's message", async () => {
    const seen: string[] = [];
    await using bridge = await startBridge({
      servers: { asker: { command: process.execPath, args: [asksForSecret()] } },
      env: {},
      onElicitation: (request) => {
        seen.push(request.message);
        return { action: "accept", content: { apiKey: "typed-by-user" } };
      },
    });
    const result = await bridge.call("asker/login", {});
    expect(JSON.parse(result.text)).toEqual({ action: "accept", content: { apiKey: "typed-by-user" } });
    expect(seen).toEqual(["Give me your API key"]);
  }, 20_000);
});
