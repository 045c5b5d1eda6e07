import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readAuthFile, tokensFromEnv } from "../../src/apps/gateway/identity/auth-file.js";
import { bearerOf, tokenMatcher } from "../../src/apps/gateway/identity/static-tokens.js";
import { tempDirs } from "../helpers/wait.js";

const dir = tempDirs("gateway-auth-");

describe("gateway auth file and tokens", () => {
  it("reads hashed, plain and environment tokens with profiles, and OAuth settings", async () => {
    const file = join(dir(), "auth.json");
    const hashed = `sha256:${createHash("sha256").update("hashed-secret").digest("hex")}`;
    writeFileSync(
      file,
      JSON.stringify({
        oauth: {
          issuer: "https://as.test",
          jwksUrl: "https://as.test/jwks",
          profiles: { bot: { servers: ["a"] } },
        },
        tokens: [{ token: hashed, client: "ci", profile: { tools: ["mcp_a_x"] } }, { tokenEnv: "GW_TOKEN" }],
      }),
    );
    const read = await readAuthFile(file, { GW_TOKEN: "from-env" });
    expect(read.oauth).toEqual({
      issuer: "https://as.test",
      jwksUrl: "https://as.test/jwks",
      profiles: { bot: { servers: ["a"] } },
    });
    const match = tokenMatcher(read.tokens);
    expect(match("hashed-secret")).toMatchObject({ client: "ci", profile: { tools: ["mcp_a_x"] } });
    expect(match(hashed)).toBeUndefined();
    expect(match("from-env")).toMatchObject({ client: "token-2", profile: undefined });
    expect(match("nope")).toBeUndefined();
  });

  it("names the file and the problem when it is invalid or a token is missing", async () => {
    const file = join(dir(), "auth.json");
    writeFileSync(file, JSON.stringify({ tokens: [{ token: "x", extra: 1 }] }));
    await expect(readAuthFile(file, {})).rejects.toThrow(/auth\.json is invalid/);
    writeFileSync(file, JSON.stringify({ tokens: [{ tokenEnv: "UNSET_VAR" }] }));
    await expect(readAuthFile(file, {})).rejects.toThrow(/Token 1 .* has no value/);
    await expect(readAuthFile(join(dir(), "missing.json"), {})).rejects.toThrow(/Cannot read/);
  });

  it("a malformed file is refused without quoting it: the parser's message would show a token", async () => {
    const file = join(dir(), "auth.json");
    for (const text of ['{"tokens":[{"token":s3cret-gateway-token"}]}', "s3cret-gateway-token"]) {
      writeFileSync(file, text);
      const error = await readAuthFile(file, {}).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: "CONFIG_INVALID", file });
      const shown = `${String(error)} ${JSON.stringify(error)} ${String((error as Error).cause)}`;
      expect(shown).toContain("is not valid JSON");
      expect(shown).not.toContain("s3cret");
    }
  });

  it("refuses two tokens under one client name: they could not be told apart", async () => {
    const file = join(dir(), "auth.json");
    writeFileSync(
      file,
      JSON.stringify({
        tokens: [
          { token: "one", client: "ci" },
          { token: "two", client: "ci", profile: { servers: ["a"] } },
        ],
      }),
    );
    await expect(readAuthFile(file, {})).rejects.toThrow(/names two tokens "ci"/);
  });

  it("splits environment tokens and parses Authorization headers", () => {
    expect(tokensFromEnv(" a, ,b ")).toEqual([{ token: "a" }, { token: "b" }]);
    expect(tokensFromEnv(undefined)).toEqual([]);
    expect(bearerOf("Bearer abc")).toBe("abc");
    expect(bearerOf("bearer  abc ")).toBe("abc");
    expect(bearerOf("Basic abc")).toBeUndefined();
    expect(bearerOf(undefined)).toBeUndefined();
  });
});
