import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * A TypeScript consumer of the packed package, type-checked with strict settings and the default
 * `skipLibCheck: false`: every declaration it reaches is checked. It has only what installing the
 * package brings (its `dependencies`) plus Node's types: no optional peer (`@opentelemetry/api`,
 * `ai`) and no DOM lib, so a declaration needing one fails here as it fails for the user.
 */

const root = process.cwd();
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  name: string;
  dependencies: Record<string, string>;
};

let dir = "";
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mcp-bridge-consumer-"));
  // No build here (dist/ is built before the tests); `--ignore-scripts` keeps prepack from building.
  const pack = spawnSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], {
    cwd: root,
    encoding: "utf8",
    timeout: 110_000,
  });
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  const [report] = JSON.parse(pack.stdout) as { filename: string }[];
  if (!report) throw new Error("npm pack reported nothing");
  const modules = join(dir, "node_modules");
  const installed = join(modules, pkg.name);
  mkdirSync(installed, { recursive: true });
  const untar = spawnSync("tar", [
    "-xzf",
    join(dir, report.filename),
    "-C",
    installed,
    "--strip-components=1",
  ]);
  if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr}`);
  // What `npm install` of the tarball brings (offline: this checkout's copies), and Node's types.
  for (const name of [...Object.keys(pkg.dependencies), "@types/node"]) {
    const target = join(modules, name);
    mkdirSync(join(target, ".."), { recursive: true });
    symlinkSync(join(root, "node_modules", name), target);
  }
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: "nodenext",
        target: "es2022",
        lib: ["es2022"],
        types: ["node"],
        noEmit: true,
        skipLibCheck: false,
      },
      include: ["consumer.ts"],
    }),
  );
  writeFileSync(
    join(dir, "consumer.ts"),
    [
      'import { startBridge, loadConfig } from "mcp-bridge";',
      'import * as adapters from "mcp-bridge/adapters";',
      'import * as gateway from "mcp-bridge/gateway";',
      'import * as agent from "mcp-bridge/agent";',
      'import * as codeMode from "mcp-bridge/code-mode";',
      "export const used = [startBridge, loadConfig, adapters, gateway, agent, codeMode];",
    ].join("\n"),
  );
}, 120_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The errors tsc reports for the consumer, one per line. */
function consumerErrors(): string[] {
  const tsc = spawnSync(
    process.execPath,
    [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", dir],
    {
      cwd: dir,
      encoding: "utf8",
      timeout: 110_000,
    },
  );
  return (tsc.stdout + tsc.stderr).split("\n").filter((line) => line.includes("error TS"));
}

describe("the packed type declarations", () => {
  let errors: string[] = [];
  beforeAll(() => {
    errors = consumerErrors();
  }, 120_000);

  it("type-check in a strict consumer with skipLibCheck false, without the DOM lib or optional peers", () => {
    expect(errors).toEqual([]);
  });
});
