import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { redactServer } from "../../src/config/redact-config.js";
import { secretsOf } from "../../src/config/secrets.js";
import { redactText } from "../../src/util/redact.js";

const value = (min: number) => fc.stringMatching(new RegExp(`^[A-Za-z0-9_-]{${min},40}$`));
const variable = fc.constantFrom("LICENSE_ID", "TENANT", "REGION_NAME", "PROJECT", "API_TOKEN");

async function serversWith(env: Record<string, string>, servers: Record<string, Record<string, unknown>>) {
  return (await loadConfig({ servers, env, cwd: "/nowhere", homeDir: "/nowhere" })).servers;
}

describe("what is masked", () => {
  it("well-known token shapes and a URL password with an empty user are masked without being configured", () => {
    const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.${"s".repeat(43)}`;
    const text = `a ${jwt} b ghp_${"c".repeat(36)} c redis://:hunter2@cache:6379 d sk_live_${"a".repeat(24)}`;
    const masked = redactText(text, []);
    for (const secret of [jwt, `ghp_${"c".repeat(36)}`, "hunter2", `sk_live_${"a".repeat(24)}`])
      expect(masked).not.toContain(secret);
    expect(masked).toContain("redis://:***@cache:6379");
    expect(redactText("plain words, https://example.com/a?b=c", [])).toBe(
      "plain words, https://example.com/a?b=c",
    );
  });

  it("a value from ${VAR} (8+ characters) is masked wherever it landed: URL path, plain query, args", async () => {
    await fc.assert(
      fc.asyncProperty(variable, value(8), async (name, secret) => {
        const [remote, local] = await serversWith(
          { [name]: secret },
          {
            remote: { url: `https://example.test/\${${name}}/mcp?page=\${${name}}` },
            local: { command: "tool", args: [`--id=\${${name}}`], cwd: `/srv/\${${name}}` },
          },
        );
        if (!remote || !local) throw new Error("servers not loaded");
        for (const definition of [remote, local]) {
          const secrets = secretsOf(definition);
          expect(JSON.stringify(redactServer(definition))).not.toContain(secret);
          expect(redactText(`failed: ${JSON.stringify(definition)} said ${secret}`, secrets)).not.toContain(
            secret,
          );
        }
      }),
      { numRuns: 100 },
    );
  });

  it("a value under a secret-looking variable or env name is masked from 4 characters", async () => {
    const [server] = await serversWith(
      { API_KEY: "k3y9" },
      {
        s: { command: "tool", args: ["${API_KEY}"], env: { DB_PASSWORD: "pw12" } },
      },
    );
    if (!server) throw new Error("server not loaded");
    expect(secretsOf(server)).toEqual(expect.arrayContaining(["k3y9", "pw12"]));
  });

  it("ordinary values stay readable: plain env values, short plain variables, flags, small numbers, HOME", async () => {
    const [server] = await serversWith(
      { LEVEL: "debug", HOME: "/home/someone", PORT: "8080" },
      {
        s: {
          command: "tool",
          args: ["--level=${LEVEL}", "--port", "${PORT}", "${HOME}/data"],
          env: { COUNT: "100000", MAX_TOKENS: "4096", TOKEN_CACHE: "true" },
        },
      },
    );
    if (!server) throw new Error("server not loaded");
    expect(secretsOf(server)).toEqual([]);
    expect(redactText("flood done 100000 at debug on 8080 in /home/someone", secretsOf(server))).toBe(
      "flood done 100000 at debug on 8080 in /home/someone",
    );
  });

  it("header values are secrets, except standard headers that carry none", async () => {
    const [server] = await serversWith(
      {},
      {
        s: {
          url: "https://example.test/mcp",
          headers: {
            Accept: "application/json",
            "X-Custom": "custom-value",
            Authorization: "Bearer tok-123456",
          },
        },
      },
    );
    if (!server) throw new Error("server not loaded");
    expect(secretsOf(server)).toEqual(
      expect.arrayContaining(["custom-value", "Bearer tok-123456", "tok-123456"]),
    );
    expect(secretsOf(server)).not.toContain("application/json");
  });

  it("the record of values from the environment never reaches JSON output", async () => {
    const [server] = await serversWith(
      { LICENSE_ID: "lic-0123456789" },
      {
        s: { command: "tool", args: ["${LICENSE_ID}"] },
      },
    );
    expect(JSON.stringify(server)).not.toContain("valuesFromEnv");
    expect(Object.getOwnPropertySymbols(redactServer(server as never))).toEqual([]);
  });
});
