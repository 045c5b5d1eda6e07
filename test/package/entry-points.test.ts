import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Every entry point of package.json `exports`, imported as a user's program would after `npm install`:
 * from the packed tarball (what `files` ships), by its package specifier (`mcp-bridge/adapters`), with
 * the same runtime names as the source module it maps to. A subpath whose file is not packed, or a
 * source change that did not reach the build, fails here rather than in a user's project.
 */
const root = resolve(".");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  name: string;
  exports: Record<string, string | { types: string; import: string }>;
};
const subpaths = Object.entries(pkg.exports).filter(
  (entry): entry is [string, { types: string; import: string }] => typeof entry[1] !== "string",
);
const built = subpaths.every(([, target]) => existsSync(join(root, target.import)));

let dir = "";
let packed: string[] = [];
beforeAll(() => {
  if (!built) throw new Error("dist/ is missing an entry point: run `npm run build` first (npm test does)");
  dir = mkdtempSync(join(tmpdir(), "mcp-bridge-packed-"));
  // No build here (`npm test` builds first); `--ignore-scripts` keeps prepack from building again.
  const pack = spawnSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], {
    cwd: root,
    encoding: "utf8",
    timeout: 110_000,
  });
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  const [report] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
  if (!report) throw new Error("npm pack reported nothing");
  packed = report.files.map((file) => file.path);
  // The package as npm installs it, beside the dependencies it declares (this checkout's).
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
  for (const name of readdirSync(join(root, "node_modules"))) {
    if (name === pkg.name || name.startsWith(".")) continue;
    symlinkSync(join(root, "node_modules", name), join(modules, name));
  }
}, 120_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the packed package", () => {
  it("ships the file and the types of every entry point", () => {
    for (const [subpath, target] of subpaths) {
      expect(packed, subpath).toContain(target.import.replace("./", ""));
      expect(packed, subpath).toContain(target.types.replace("./", ""));
    }
  });

  it("each entry point imports by its package name with the runtime names of its source", async () => {
    const program = [
      "const names = {};",
      ...subpaths.map(
        ([subpath]) =>
          `names[${JSON.stringify(subpath)}] = Object.keys(await import(${JSON.stringify(join(pkg.name, subpath))})).sort();`,
      ),
      "console.log(JSON.stringify(names));",
    ].join("\n");
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", program], {
      cwd: dir,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const names = JSON.parse(run.stdout) as Record<string, string[]>;
    for (const [subpath, target] of subpaths) {
      const source = join(root, target.import.replace("./dist/", "").replace(/\.js$/, ".ts"));
      const expected = Object.keys(await import(source)).sort();
      expect(names[subpath], subpath).toEqual(expected);
      expect(expected.length, subpath).toBeGreaterThan(0);
    }
    // Nothing else resolves: a removed entry point stays removed.
    const gone = spawnSync(
      process.execPath,
      ["--input-type=module", "-e", `await import("${pkg.name}/internals")`],
      {
        cwd: dir,
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    expect(gone.status).not.toBe(0);
    expect(gone.stderr).toContain("ERR_PACKAGE_PATH_NOT_EXPORTED");
  }, 90_000);
});
