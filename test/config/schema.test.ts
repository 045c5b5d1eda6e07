import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { redactConfig } from "../../src/config/redact-config.js";
import { configJsonSchema } from "../../src/config/schema.js";

describe("published JSON Schema", () => {
  it("schema/mcp-bridge.schema.json is up to date (npm run schema)", () => {
    const published = JSON.parse(
      readFileSync(new URL("../../schema/mcp-bridge.schema.json", import.meta.url), "utf8"),
    );
    expect(published).toEqual(configJsonSchema());
  });
});

describe("redactConfig", () => {
  it("masks every secret value but keeps the names", async () => {
    const secrets = [
      "env-secret-value",
      "header-secret-value",
      "url-password",
      "query-token-value",
      "oauth-client-secret",
    ];
    const config = await loadConfig({
      env: {},
      servers: {
        local: { command: "node", args: ["s.js"], env: { API_KEY: secrets[0] as string } },
        remote: {
          url: `https://me:${secrets[2]}@example.com/mcp?access_token=${secrets[3]}`,
          headers: { "X-Api-Key": secrets[1] as string },
          oauth: { clientId: "public-id", clientSecret: secrets[4] },
        },
      },
    });
    const printed = JSON.stringify(redactConfig(config));
    for (const secret of secrets) expect(printed).not.toContain(secret);
    expect(printed).toContain("API_KEY");
    expect(printed).toContain("X-Api-Key");
    expect(printed).toContain("public-id");
  });
});
