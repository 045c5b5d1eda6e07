// Regenerates schema/mcp-bridge.schema.json from the zod schema (run after `npm run build`).
import { writeFileSync } from "node:fs";
import { configJsonSchema } from "../dist/src/config/schema.js";

writeFileSync(
  new URL("../schema/mcp-bridge.schema.json", import.meta.url),
  `${JSON.stringify(configJsonSchema(), null, 2)}\n`,
);
