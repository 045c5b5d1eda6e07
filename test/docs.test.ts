import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe } from "vitest";
import { root, testCodeBlocks } from "./helpers/doc-blocks.js";

/** Every code block of the reference in docs/ is run, with the rules the README's blocks follow. */
describe("docs/ code blocks", () => {
  testCodeBlocks(
    readdirSync(join(root, "docs"))
      .filter((file) => file.endsWith(".md"))
      .sort()
      .map((file) => join("docs", file)),
  );
});
