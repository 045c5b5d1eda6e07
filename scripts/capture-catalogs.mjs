#!/usr/bin/env node
// Captures the tool lists of real MCP servers published on npm into test/fixtures/catalogs/, for the
// tool-search tests and the catalog benchmark (a realistic catalog of many servers' tools).
// Servers get placeholder credentials: listing tools does not call any remote API, and a server that
// needs more than that to start is reported and skipped. Run: `npm run build && node scripts/capture-catalogs.mjs`.
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { startBridge } = await import(join(root, "dist/src/index.js"));
const out = join(root, "test/fixtures/catalogs");
mkdirSync(out, { recursive: true });

const fake = "placeholder-not-a-real-credential";
/** name -> [npm package, extra args, env] */
const servers = {
  everything: ["@modelcontextprotocol/server-everything", [], {}],
  filesystem: ["@modelcontextprotocol/server-filesystem", [tmpdir()], {}],
  memory: ["@modelcontextprotocol/server-memory", [], {}],
  "sequential-thinking": ["@modelcontextprotocol/server-sequential-thinking", [], {}],
  github: ["@modelcontextprotocol/server-github", [], { GITHUB_PERSONAL_ACCESS_TOKEN: fake }],
  gitlab: ["@modelcontextprotocol/server-gitlab", [], { GITLAB_PERSONAL_ACCESS_TOKEN: fake }],
  slack: ["@modelcontextprotocol/server-slack", [], { SLACK_BOT_TOKEN: fake, SLACK_TEAM_ID: "T000" }],
  "brave-search": ["@modelcontextprotocol/server-brave-search", [], { BRAVE_API_KEY: fake }],
  "google-maps": ["@modelcontextprotocol/server-google-maps", [], { GOOGLE_MAPS_API_KEY: fake }],
  postgres: ["@modelcontextprotocol/server-postgres", ["postgresql://127.0.0.1:1/none"], {}],
  redis: ["@modelcontextprotocol/server-redis", ["redis://127.0.0.1:1"], {}],
  everart: ["@modelcontextprotocol/server-everart", [], { EVERART_API_KEY: fake }],
  "aws-kb": [
    "@modelcontextprotocol/server-aws-kb-retrieval",
    [],
    { AWS_ACCESS_KEY_ID: fake, AWS_SECRET_ACCESS_KEY: fake, AWS_REGION: "us-east-1" },
  ],
  puppeteer: ["@modelcontextprotocol/server-puppeteer", [], { PUPPETEER_SKIP_DOWNLOAD: "1" }],
  playwright: ["@playwright/mcp", [], {}],
  notion: ["@notionhq/notion-mcp-server", [], { NOTION_TOKEN: fake }],
  sentry: ["@sentry/mcp-server", [`--access-token=${fake}`], {}],
  stripe: ["@stripe/mcp", ["--tools=all", `--api-key=sk_test_${fake}`], {}],
  "chrome-devtools": ["chrome-devtools-mcp", [], {}],
  heroku: ["@heroku/mcp-server", [], { HEROKU_API_KEY: fake }],
};

const only = process.argv.slice(2);
const names = Object.keys(servers).filter((name) => only.length === 0 || only.includes(name));
for (const name of names) {
  const [pkg, args, env] = servers[name];
  const started = Date.now();
  const bridge = await startBridge({
    servers: {
      [name]: {
        command: "npx",
        args: ["-y", pkg, ...args],
        env,
        inheritEnv: ["PATH", "HOME", "npm_config_cache"],
        startupTimeout: "180s",
        restart: { enabled: false },
      },
    },
    settings: { descriptionPrefix: "" },
  });
  try {
    const status = bridge.servers()[0];
    const tools = bridge.tools({ server: name });
    if (status?.state !== "connected" || tools.length === 0) {
      process.stderr.write(
        `${name}: skipped (${status?.state}: ${status?.lastError?.message ?? "no tools"})\n`,
      );
      continue;
    }
    const catalog = {
      server: name,
      package: pkg,
      version: status.serverInfo?.version ?? null,
      tools: tools.map((t) => ({
        name: t.tool,
        ...(t.title ? { title: t.title } : {}),
        description: t.description,
        inputSchema: t.inputSchema,
      })),
    };
    writeFileSync(join(out, `${name}.json`), `${JSON.stringify(catalog, null, 2)}\n`);
    process.stderr.write(`${name}: ${tools.length} tools (${Date.now() - started} ms)\n`);
  } finally {
    await bridge.close();
  }
}
