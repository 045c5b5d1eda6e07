import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { startBridge } from "../../src/index.js";
import {
  childEnvironment,
  looksSecretName,
  looksSecretVariable,
} from "../../src/transport/child-environment.js";
import { fixturePath } from "../fixtures/servers/index.js";

// Environment hygiene: a stdio server never gets the host's secret-looking variables by accident, not
// even under `inheritEnv: true`; its entry passes one only by naming it.

const SECRETS = {
  OPENAI_API_KEY: "sk-host-openai-0001",
  GITHUB_TOKEN: "ghp_host_token_0002",
  GH_PAT: "host-pat-0003",
  AWS_SECRET_ACCESS_KEY: "host-aws-0004",
  DB_PASSWORD: "host-db-0005",
  SSH_AUTH_SOCK: "/tmp/ssh-host/agent.1",
  GOOGLE_APPLICATION_CREDENTIALS: "/home/host/creds.json",
  my_private_thing: "host-private-0006",
  SESSION_COOKIE: "host-cookie-0007",
};
const HARMLESS = { HARMLESS_SETTING: "on", LANG: "C.UTF-8" };

/** The variable names the `normal` fixture's server sees, with debug messages of the bridge. */
async function namesSeen(entry: Record<string, unknown>): Promise<{ names: string[]; debug: string[] }> {
  const debug: string[] = [];
  const logger = { debug: (message: string) => debug.push(message), info() {}, warn() {}, error() {} };
  await using bridge = await startBridge({
    servers: { s: { command: process.execPath, args: [fixturePath("normal")], ...entry } },
    env: { ...process.env, ...SECRETS, ...HARMLESS },
    logger,
  });
  const result = await bridge.call("mcp_s_env");
  return { names: JSON.parse(result.text) as string[], debug };
}

describe("environment hygiene", () => {
  it("inheritEnv: true passes the host's variables except those whose names look secret, and logs the names withheld", async () => {
    const { names, debug } = await namesSeen({ inheritEnv: true });
    expect(names).toEqual(expect.arrayContaining(["HARMLESS_SETTING", "LANG", "PATH"]));
    for (const secret of Object.keys(SECRETS)) expect(names).not.toContain(secret);
    const withheld = debug.find((message) => message.includes("does not get these host variables"));
    expect(withheld).toBeDefined();
    for (const secret of Object.keys(SECRETS)) expect(withheld).toContain(secret);
    // Names only: never a value.
    for (const value of Object.values(SECRETS)) expect(debug.join("\n")).not.toContain(value);
  });

  it("the default passes the base set only", async () => {
    const { names } = await namesSeen({});
    expect(names).toContain("PATH");
    expect(names).not.toContain("HARMLESS_SETTING");
    for (const secret of Object.keys(SECRETS)) expect(names).not.toContain(secret);
  });

  it("an entry passes a secret on purpose: by name in inheritEnv, or as ${VAR} in its env", async () => {
    const { names, debug } = await namesSeen({
      inheritEnv: ["GH_PAT"],
      env: { UPSTREAM_TOKEN: "${GITHUB_TOKEN}" },
    });
    expect(names).toEqual(expect.arrayContaining(["GH_PAT", "UPSTREAM_TOKEN"]));
    expect(names).not.toContain("GITHUB_TOKEN");
    expect(names).not.toContain("OPENAI_API_KEY");
    const withheld = debug.find((message) => message.includes("does not get these host variables")) ?? "";
    expect(withheld).not.toContain("GH_PAT");
    expect(withheld).toContain("OPENAI_API_KEY");
  });

  it("names are matched whatever their case; harmless names pass", () => {
    for (const name of ["github_token", "Api_Key", "X_AUTH", "db_pass", "MY_PAT", "npm_config__authToken"])
      expect(looksSecretName(name)).toBe(true);
    for (const name of [
      "PATH",
      "HOME",
      "LANG",
      "PWD",
      "OLDPWD",
      "TERM",
      "EDITOR",
      "NODE_ENV",
      "XDG_DATA_HOME",
    ])
      expect(looksSecretName(name)).toBe(false);
  });

  it("property: under inheritEnv true no secret-looking host name reaches the child unless configured", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.stringMatching(/^[A-Z][A-Za-z0-9_]{0,20}$/), fc.string({ maxLength: 8 })),
        fc.dictionary(fc.stringMatching(/^[A-Z][A-Za-z0-9_]{0,20}$/), fc.string({ maxLength: 8 })),
        (host, configured) => {
          const { env, withheld } = childEnvironment(configured, true, host);
          for (const name of Object.keys(host)) {
            if (!looksSecretName(name) || name in configured) continue;
            expect(Object.hasOwn(env, name)).toBe(false);
            expect(withheld).toContain(name);
          }
          for (const [name, value] of Object.entries(configured)) expect(env[name]).toBe(value);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("inheritEnv: true judges values too: credentials in URLs and well-known token shapes are withheld", () => {
    const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjaS1qb2IifQ.${"s".repeat(43)}`;
    const carrying = {
      REDIS_URL: "redis://:hunter2@cache.internal:6379/0",
      MONGODB_URI: "mongodb+srv://app:hunter2@cluster0.example.net/db",
      AMQP_URL: "amqp://guest:guest@rabbit:5672/",
      HTTPS_PROXY: "http://user:pass@proxy.corp:3128",
      SLACK_HOOK: `https://hooks.slack.com/services/T0000/B0000/${"x".repeat(24)}`,
      SLACK_WEBHOOK_URL: "https://hooks.example.com/whatever",
      CI_JOB_JWT: jwt,
      CI_ID: jwt,
      STRIPE_SK: `sk_live_${"a".repeat(24)}`,
      BILLING: `rk_live_${"b".repeat(24)}`,
      SENTRY_URL: "https://0123456789abcdef@o1.ingest.sentry.io/1",
      CALLBACK_URL: "https://example.com/cb?access_token=abcdef",
      GH: `ghp_${"c".repeat(36)}`,
      AWS_ID: "AKIAABCDEFGHIJKLMNOP",
    };
    const harmless = {
      HOMEPAGE_URL: "https://example.com/docs?page=2",
      NO_PROXY: "localhost,127.0.0.1",
      DATABASE_HOST: "db.internal",
      EDITOR: "vim",
      GREETING: "user:pass without a scheme is just text",
    };
    const { env, withheld } = childEnvironment({}, true, { ...carrying, ...harmless });
    for (const name of Object.keys(carrying)) {
      expect(env, name).not.toHaveProperty(name);
      expect(withheld).toContain(name);
    }
    for (const [name, value] of Object.entries(harmless)) expect(env[name]).toBe(value);
    // Listed by name, a variable passes on purpose, whatever its value.
    expect(childEnvironment({}, ["REDIS_URL"], carrying).env.REDIS_URL).toBe(carrying.REDIS_URL);
  });

  it("property: under inheritEnv true a value with URL credentials never reaches the child", () => {
    const userPart = fc.stringMatching(/^[A-Za-z0-9._~%!$&'()*+,;=-]{0,12}$/);
    const password = fc.stringMatching(/^[A-Za-z0-9._~%!$&'()*+,;=:-]{1,16}$/);
    const scheme = fc.stringMatching(/^[a-z][a-z0-9+.-]{0,8}$/);
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,20}$/),
        scheme,
        userPart,
        password,
        fc.domain(),
        fc.constantFrom("", "/", "/db?x=1", ":5432/app"),
        fc.constantFrom("", "proxy=", "url is ", "a,"),
        (name, protocol, user, secret, host, tail, before) => {
          const value = `${before}${protocol}://${user}:${secret}@${host}${tail}`;
          expect(looksSecretVariable(name, value)).toBe(true);
          const { env, withheld } = childEnvironment({}, true, { [name]: value, PLAIN: "on" });
          expect(Object.hasOwn(env, name)).toBe(false);
          expect(withheld).toContain(name);
          expect(env.PLAIN).toBe("on");
        },
      ),
      { numRuns: 300 },
    );
  });
});
