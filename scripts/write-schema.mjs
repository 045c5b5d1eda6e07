// Regenerates schema/mcp-bridge.schema.json and the README's config key tables from the field tables
// of src/config/fields.ts (run after `npm run build`); test/config/schema.test.ts fails when either is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { withGeneratedTables } from "../dist/src/config/docs.js";
import { configJsonSchema } from "../dist/src/config/schema.js";

writeFileSync(
  new URL("../schema/mcp-bridge.schema.json", import.meta.url),
  `${JSON.stringify(configJsonSchema(), null, 2)}\n`,
);
const readme = new URL("../README.md", import.meta.url);
writeFileSync(readme, withGeneratedTables(readFileSync(readme, "utf8")));
