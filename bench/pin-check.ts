/**
 * Cost of pinned tool definitions on a 2,000-tool listing (tools of real MCP servers, repeated):
 * checking a listing against its pins (read the pin file, fingerprint every definition, compare) per
 * listing, against publishing the same listing in the registry (what every listing costs anyway).
 * Runs alone with `node dist/bench/pin-check.js [--quick]`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Tool } from "@modelcontextprotocol/client";
import { DefinitionPins } from "../src/bridge/pins/definition-pins.js";
import type { ServerDefinition } from "../src/config/model.js";
import { ToolRegistry } from "../src/registry/registry.js";
import { silentLogger } from "../src/util/logger.js";
import { realCatalog } from "../test/fixtures/catalogs/index.js";
import { type Figure, fmt, percentile } from "./stats.js";

const TOOLS = 2000;

function listing(): Tool[] {
  const catalog = realCatalog();
  return Array.from({ length: TOOLS }, (_, i) => {
    const base = catalog[i % catalog.length] as (typeof catalog)[number];
    return {
      name: `${base.tool}_${i}`,
      description: base.description,
      inputSchema: base.inputSchema as Tool["inputSchema"],
      annotations: base.annotations,
    } as Tool;
  });
}

function timesMs(runs: number, body: () => void): number[] {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    body();
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return samples.sort((a, b) => a - b);
}

export function pinCheckFigures(quick: boolean): Figure[] {
  const dir = mkdtempSync(join(tmpdir(), "mcp-bridge-bench-pins-"));
  try {
    const tools = listing();
    const definition = {
      name: "bench",
      transport: "stdio",
      command: "node",
      args: [],
      env: {},
      inheritEnv: false,
    } as unknown as ServerDefinition;
    const pins = new DefinitionPins({
      dir,
      logger: silentLogger,
      redact: (text) => text,
      onDrift: "block",
      confirmDrift: undefined,
      emit: () => {},
    });
    const runs = quick ? 10 : 40;
    const first = timesMs(1, () => pins.check(definition, "tool", tools, undefined));
    const check = timesMs(runs, () => pins.check(definition, "tool", tools, undefined));
    const registry = new ToolRegistry({
      toolNameFormat: "mcp_{server}_{tool}",
      descriptionPrefix: "",
      reservedNames: [],
      filter: undefined,
      logger: silentLogger,
    });
    registry.declareServers(["bench"]);
    const publish = timesMs(runs, () =>
      registry.setServerTools("bench", { include: [], exclude: [] }, tools, { toolTasks: false }),
    );
    const p50 = percentile(check, 0.5);
    return [
      {
        name: `pin check of a ${TOOLS}-tool listing (p50)`,
        unit: "ms",
        bridge: p50,
        baseline: percentile(publish, 0.5),
        baselineName: "registry publish of the same listing",
        detail: `first listing (pinning, file write): ${fmt(first[0] ?? 0)} ms; p95 check ${fmt(percentile(check, 0.95))} ms`,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const figure of pinCheckFigures(process.argv.includes("--quick")))
    process.stdout.write(
      `${figure.name}: ${fmt(figure.bridge)} ${figure.unit} (${figure.baselineName}: ${fmt(figure.baseline)} ${figure.unit}); ${figure.detail}\n`,
    );
}
