import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * `import "mcp-bridge/ai-sdk"` in a host without `ai` (an optional peer dependency): a resolve hook
 * makes `ai` missing for one Node process, which imports the built subpath as a consumer would.
 */
describe("mcp-bridge/ai-sdk without `ai` installed", () => {
  it("fails with MODULE_LOAD_FAILED naming the part and what to install", () => {
    const hooks = `export async function resolve(specifier, context, next) {
      if (specifier === "ai") {
        const error = new Error("Cannot find package 'ai' imported from " + context.parentURL);
        error.code = "ERR_MODULE_NOT_FOUND";
        throw error;
      }
      return next(specifier, context);
    }`;
    const register = `import { register } from "node:module"; register(${JSON.stringify(
      `data:text/javascript,${encodeURIComponent(hooks)}`,
    )});`;
    const subpath = pathToFileURL(resolve("dist/src/adapters/ai-sdk.js")).href;
    const consumer = `import(${JSON.stringify(subpath)}).then(
      () => console.log("loaded"),
      (error) => console.log(JSON.stringify({ code: error.code, message: error.message })),
    );`;
    const child = spawnSync(
      process.execPath,
      [
        "--import",
        `data:text/javascript,${encodeURIComponent(register)}`,
        "--input-type=module",
        "-e",
        consumer,
      ],
      { encoding: "utf8", timeout: 30_000 },
    );
    expect(child.stderr).toBe("");
    const outcome = JSON.parse(child.stdout) as { code: string; message: string };
    expect(outcome.code).toBe("MODULE_LOAD_FAILED");
    expect(outcome.message).toContain("Could not load mcp-bridge/ai-sdk");
    expect(outcome.message).toContain("npm install ai");
  });
});
