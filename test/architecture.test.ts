import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const srcDir = resolve(dirname(fileURLToPath(import.meta.url)), "../src");

/** Which layers each layer may import. Imports flow one way; nothing imports the CLI. */
const allowed: Record<string, readonly string[]> = {
  errors: [],
  util: ["errors"],
  // Every use of an SDK or undici internal (see sdk/shims.ts): below the layers that connect.
  sdk: ["errors", "util"],
  config: ["errors", "util"],
  telemetry: ["errors", "util"],
  auth: ["errors", "util", "config"],
  transport: ["errors", "util", "config", "sdk"],
  connection: ["errors", "util", "config", "sdk", "transport", "telemetry"],
  registry: ["errors", "util", "config"],
  results: ["errors", "util"],
  search: ["errors", "util", "registry"],
  // The call policy: a pure evaluator over config rules (and the managed policy file's).
  policy: ["errors", "util", "config"],
  // The hash-chained audit log: its writer and its verifier.
  audit: ["errors", "util"],
  bridge: [
    "errors",
    "util",
    "config",
    "auth",
    "transport",
    "connection",
    "registry",
    "results",
    "search",
    "telemetry",
    "policy",
    "audit",
  ],
  adapters: ["errors", "util", "registry", "results", "search", "bridge"],
  // Code mode: a typed API of the tools and a QuickJS sandbox, over the bridge's public types.
  codemode: ["errors", "util", "registry", "results", "search", "bridge"],
  agent: ["errors", "util", "registry", "results", "bridge", "adapters"],
  // The gateway serves its own wire: its stdio framing and its remote documents (JWKS) go through the
  // transport layer's framer and bounded fetch.
  // `serveGateway` starts the bridge behind it, and with code mode serves its view (loaded on use).
  gateway: [
    "codemode",
    "errors",
    "util",
    "sdk",
    "config",
    "auth",
    "transport",
    "registry",
    "results",
    "search",
    "bridge",
    "adapters",
    "telemetry",
  ],
  // The main entry (`mcp-bridge`): named exports of the library layers, none of the applications.
  index: [
    "errors",
    "util",
    "config",
    "auth",
    "connection",
    "registry",
    "results",
    "search",
    "bridge",
    "adapters",
  ],
  // The CLI's daemon: serves a bridge's documents on a Unix socket; the CLI talks to it, never the reverse.
  daemon: ["errors", "util", "config", "registry", "results", "bridge", "adapters"],
  // `attach` relays its host's stdio to the daemon with the transport layer's bounded line framer.
  cli: [
    "audit",
    "codemode",
    "daemon",
    "transport",
    "errors",
    "util",
    "config",
    "auth",
    "connection",
    "registry",
    "results",
    "bridge",
    "adapters",
    "agent",
    "gateway",
    "index",
  ],
};

/** The applications: under src/apps/, apart from the library layers. Nothing in the library imports them. */
const APPLICATIONS = ["agent", "cli", "daemon", "gateway"];

/** A file's layer: its folder under src/ (or under src/apps/ for an application), or its name for a root file. */
function layerOf(file: string): string {
  const [first = "", second = ""] = relative(srcDir, file).split(/[\\/]/);
  return (first === "apps" ? second : first).replace(/\.ts$/, "");
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

function relativeImports(file: string): { spec: string; typeOnly: boolean }[] {
  const text = readFileSync(file, "utf8");
  const found: { spec: string; typeOnly: boolean }[] = [];
  const pattern =
    /(?:^|\n)\s*(import|export)\s+(type\s+)?[^;]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;
  for (const match of text.matchAll(pattern)) {
    const spec = match[3] ?? match[4];
    if (spec) found.push({ spec, typeOnly: Boolean(match[2]) });
  }
  return found;
}

/** The groups of a strongly connected component search: every set of nodes that import each other in a loop. */
function circles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next))
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1) found.push(group.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/**
 * The import graph of src/apps/gateway (type-only imports too: a circle of types is still a circle a
 * reader must hold at once), by file and by what each file's group is: its folder under the gateway
 * (entry/, identity/, admission/, forwarding/, faces/, cluster/, fast-path/) or, at the top, the file.
 */
function gatewayGraphs(): { files: Map<string, Set<string>>; groups: Map<string, Set<string>> } {
  const gatewayDir = join(srcDir, "apps", "gateway");
  const groupOf = (file: string) => relative(gatewayDir, file).split(/[\\/]/)[0] ?? "";
  const files = new Map<string, Set<string>>();
  const groups = new Map<string, Set<string>>();
  for (const file of sourceFiles(gatewayDir)) {
    const from = relative(gatewayDir, file);
    files.set(from, files.get(from) ?? new Set());
    groups.set(groupOf(file), groups.get(groupOf(file)) ?? new Set());
    for (const { spec } of relativeImports(file)) {
      const target = resolve(dirname(file), spec.replace(/\.js$/, ".ts"));
      if (relative(gatewayDir, target).startsWith("..")) continue;
      files.get(from)?.add(relative(gatewayDir, target));
      if (groupOf(target) !== groupOf(file)) groups.get(groupOf(file))?.add(groupOf(target));
    }
  }
  return { files, groups };
}

describe("architecture", () => {
  it("keeps imports flowing one way between the layers of src/", () => {
    const violations: string[] = [];
    for (const file of sourceFiles(srcDir)) {
      const from = layerOf(file);
      for (const { spec } of relativeImports(file)) {
        const target = resolve(dirname(file), spec.replace(/\.js$/, ".ts"));
        const to = layerOf(target);
        if (to === from) continue;
        // The bridge's contract file (types only) is what adapters and the registry's stats code against.
        if (!(allowed[from] ?? []).includes(to))
          violations.push(`${relative(srcDir, file)} -> ${spec} (${from} -> ${to})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("keeps the applications under src/apps/ and only library layers beside them", () => {
    const apps = readdirSync(join(srcDir, "apps"), { withFileTypes: true });
    expect(
      apps
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort(),
    ).toEqual(APPLICATIONS);
    const top = readdirSync(srcDir, { withFileTypes: true }).filter((entry) => entry.isDirectory());
    for (const entry of top) expect(APPLICATIONS).not.toContain(entry.name);
    for (const layer of Object.keys(allowed)) {
      if (APPLICATIONS.includes(layer)) continue;
      for (const app of APPLICATIONS) expect(allowed[layer]).not.toContain(app);
    }
  });

  it("names each file of src/ once (only the entry points share index.ts)", () => {
    const byName = new Map<string, string[]>();
    for (const file of sourceFiles(srcDir)) {
      const name = file.split(/[\\/]/).pop() ?? "";
      byName.set(name, [...(byName.get(name) ?? []), relative(srcDir, file)]);
    }
    const repeated = [...byName].filter(([name, files]) => name !== "index.ts" && files.length > 1);
    expect(repeated).toEqual([]);
  });

  it("reaches SDK internals only from src/sdk/, where each is feature-detected and switchable", () => {
    const internal =
      /\b_(responseHandlers|progressHandlers|timeoutInfo|requestHandlerAbortControllers|cleanupTimeout)\b/;
    const sdkDir = join(srcDir, "sdk");
    const outside = sourceFiles(srcDir).filter(
      (file) => relative(sdkDir, file).startsWith("..") && internal.test(readFileSync(file, "utf8")),
    );
    expect(outside.map((file) => relative(srcDir, file))).toEqual([]);
  });

  it("has a layer rule for every folder of src/", () => {
    const layers = new Set(sourceFiles(srcDir).map(layerOf));
    for (const layer of layers) expect(Object.keys(allowed)).toContain(layer);
  });

  it("has no import circle in src/bridge/ (a type import counts; the contract file api.ts aside)", () => {
    // api.ts is the bridge's contract, types only: the features import it (the rule below) and it
    // names their types, a knot of types that loads nothing. Any other circle means a module imports
    // one that is a function over it: the shared data belongs in the file that owns it.
    const bridgeDir = join(srcDir, "bridge");
    const contract = join(bridgeDir, "api.ts");
    const edges = new Map<string, string[]>();
    for (const file of sourceFiles(bridgeDir)) {
      const targets = relativeImports(file)
        .map(({ spec }) => resolve(dirname(file), spec.replace(/\.js$/, ".ts")))
        .filter((target) => target !== contract && !relative(bridgeDir, target).startsWith(".."));
      edges.set(file, targets);
    }
    const circles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "open") {
        circles.push(
          [...path.slice(path.indexOf(file)), file].map((f) => relative(bridgeDir, f)).join(" -> "),
        );
        return;
      }
      state.set(file, "open");
      for (const target of edges.get(file) ?? []) visit(target, [...path, file]);
      state.set(file, "done");
    };
    for (const file of edges.keys()) visit(file, []);
    expect(circles).toEqual([]);
  });

  it("keeps the MCP features apart from the bridge runtime: they import only its public types", () => {
    const bridgeDir = join(srcDir, "bridge");
    const featuresDir = join(bridgeDir, "features");
    const allowedFromBridge = new Set([join(bridgeDir, "api.ts")]);
    const violations: string[] = [];
    const features = sourceFiles(featuresDir);
    expect(features.length).toBeGreaterThan(0);
    for (const file of features) {
      for (const { spec } of relativeImports(file)) {
        const target = resolve(dirname(file), spec.replace(/\.js$/, ".ts"));
        const inBridge = !relative(bridgeDir, target).startsWith("..");
        const inFeatures = !relative(featuresDir, target).startsWith("..");
        if (inBridge && !inFeatures && !allowedFromBridge.has(target))
          violations.push(`${relative(srcDir, file)} -> ${spec}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("loads the skills and completion code only on first use (dynamic import), never at import time", () => {
    const lazy = ["skills.ts", "completions.ts"].map((name) => join(srcDir, "bridge", "features", name));
    const eager: string[] = [];
    for (const file of sourceFiles(srcDir)) {
      const text = readFileSync(file, "utf8");
      const statics = /(?:^|\n)\s*(import|export)\s+(?!type\s)([^;]*?)from\s+["'](\.[^"']+)["']/g;
      for (const match of text.matchAll(statics)) {
        const spec = match[3] ?? "";
        // `import { type A, type B }` is erased at compile time too.
        const names = (match[2] ?? "")
          .replace(/[{}\s]/g, "")
          .split(",")
          .filter(Boolean);
        if (names.length > 0 && names.every((name) => name.startsWith("type"))) continue;
        const target = resolve(dirname(file), spec.replace(/\.js$/, ".ts"));
        if (lazy.includes(target)) eager.push(`${relative(srcDir, file)} -> ${spec}`);
      }
    }
    expect(eager).toEqual([]);
  });

  it("keeps src/apps/gateway free of import circles, between its files and between its folders", () => {
    const { files, groups } = gatewayGraphs();
    expect(files.size).toBeGreaterThan(40);
    expect(circles(files)).toEqual([]);
    // Folders import one way too (entry above the faces and fast paths, above forwarding and the
    // cluster, above identity and admission): a change to one concern does not loop back through another.
    expect(circles(groups)).toEqual([]);
  });
});
