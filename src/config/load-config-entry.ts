import { lazyImport } from "../util/lazy-import.js";
import type { LoadConfigOptions } from "./load.js";
import type { ResolvedConfig } from "./model.js";

/** The config loader (and zod, the field table, TOML) loads on the first call, not at import time. */
const loader = lazyImport("the config loader", () => import("./load.js"));

/** Reads, merges and validates the config without starting anything: see load.ts. */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<ResolvedConfig> {
  return (await loader()).loadConfig(options);
}
