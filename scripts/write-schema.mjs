// Regenerates schema/mcp-bridge.schema.json and the config key lists of docs/config.md from the field
// tables of src/config/fields.ts (run after `npm run build`); test/config/keys.test.ts and
// test/config/schema.test.ts fail when either is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { withGeneratedKeyLists } from "../dist/src/config/docs.js";
import { configJsonSchema } from "../dist/src/config/schema.js";

writeFileSync(
  new URL("../schema/mcp-bridge.schema.json", import.meta.url),
  `${JSON.stringify(configJsonSchema(), null, 2)}\n`,
);
const doc = new URL("../docs/config.md", import.meta.url);
writeFileSync(doc, withGeneratedKeyLists(readFileSync(doc, "utf8")));
