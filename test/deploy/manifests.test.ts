import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { serveCommand } from "../../src/apps/cli/commands/serve-command.js";
import { TOKENS_ENV } from "../../src/apps/cli/declarations/process-commands.js";
import { GLOBAL_FLAGS } from "../../src/apps/cli/parse-arguments.js";

const k8sDir = join(process.cwd(), "deploy/k8s");

interface Manifest {
  kind: string;
  metadata: { name: string };
  // biome-ignore lint/suspicious/noExplicitAny: manifests are checked field by field below
  spec?: any;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  data?: any;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  stringData?: any;
  resources?: string[];
}

/** The gateway's manifests by kind, and every manifest by `kind/name` (Redis has a Deployment too). */
function manifests(): Map<string, Manifest> {
  const found = new Map<string, Manifest>();
  for (const file of readdirSync(k8sDir).filter((name) => name.endsWith(".yaml"))) {
    for (const document of parseAllDocuments(readFileSync(join(k8sDir, file), "utf8"))) {
      expect(document.errors, file).toEqual([]);
      const manifest = document.toJS() as Manifest;
      // A Kustomization has no metadata.
      const name = (manifest.metadata as Manifest["metadata"] | undefined)?.name ?? "";
      found.set(`${manifest.kind}/${name}`, manifest);
      if (!name.includes("redis")) found.set(manifest.kind, manifest);
    }
  }
  return found;
}

/** The container spec of the Deployment, which the tests below hold the other manifests against. */
function gatewayContainer(all: Map<string, Manifest>) {
  return all.get("Deployment")?.spec.template.spec.containers[0];
}

describe("Kubernetes manifests (deploy/k8s)", () => {
  const all = manifests();

  it("has a Deployment, Service, HorizontalPodAutoscaler, ConfigMap and an example Secret, all listed in the kustomization", () => {
    for (const kind of [
      "Deployment",
      "Service",
      "HorizontalPodAutoscaler",
      "PodDisruptionBudget",
      "ConfigMap",
      "Secret",
      "Kustomization",
    ]) {
      expect(all.has(kind), kind).toBe(true);
    }
    const listed = all.get("Kustomization")?.resources ?? [];
    expect(listed).toEqual(
      expect.arrayContaining(["configmap.yaml", "deployment.yaml", "service.yaml", "hpa.yaml", "pdb.yaml"]),
    );
    // The Secret is an example to copy, never applied with its placeholder value.
    expect(listed).not.toContain("secret.example.yaml");
    // Every file listed exists.
    const files = readdirSync(k8sDir);
    expect(listed.filter((file) => !files.includes(file))).toEqual([]);
  });

  it("shares Redis and the round-state keys, and tells each pod's own address, without affinity", () => {
    const container = gatewayContainer(all);
    const args = container.args as string[];
    const flagValue = (flag: string) => args[args.indexOf(flag) + 1] ?? "";
    const redis = all.get("Service/mcp-bridge-redis");
    const redisPort = redis?.spec.ports[0].port;
    expect(flagValue("--store")).toBe(`redis://${redis?.metadata.name}:${redisPort}`);
    expect(all.get("Deployment/mcp-bridge-redis")?.spec.template.metadata.labels).toEqual(
      redis?.spec.selector,
    );
    expect(all.get("Kustomization")?.resources).toContain("redis.yaml");
    // The key file: copied from the Secret's `state-keys` into a private volume the gateway mounts.
    const keysDir = container.volumeMounts.find((m: { name: string }) => m.name === "state-keys").mountPath;
    expect(flagValue("--state-keys").startsWith(`${keysDir}/`)).toBe(true);
    expect(flagValue("--cluster-secret-file").startsWith(`${keysDir}/`)).toBe(true);
    const volumes = all.get("Deployment")?.spec.template.spec.volumes as { name: string; secret?: unknown }[];
    expect(volumes.find((v) => v.name === "state-keys-secret")?.secret).toMatchObject({
      secretName: all.get("Secret")?.metadata.name,
      items: [
        { key: "state-keys", path: "state-keys" },
        { key: "cluster-secret", path: "cluster-secret" },
      ],
    });
    expect(Object.keys(all.get("Secret")?.data ?? all.get("Secret")?.stringData ?? {})).toContain(
      "state-keys",
    );
    // Each pod advertises its own IP and name, from the downward API.
    const fromPod = (name: string) =>
      container.env.find((entry: { name: string }) => entry.name === name)?.valueFrom.fieldRef.fieldPath;
    expect(fromPod("POD_IP")).toBe("status.podIP");
    expect(fromPod("POD_NAME")).toBe("metadata.name");
    const http = container.ports.find((port: { name: string }) => port.name === "http");
    expect(flagValue("--advertise-url")).toBe(`http://$(POD_IP):${http.containerPort}/mcp`);
    expect(flagValue("--replica-id")).toBe("$(POD_NAME)");
    expect(all.get("Service")?.spec.sessionAffinity).toBeUndefined();
  });

  it("probes /readyz for readiness and /healthz for liveness on the port the gateway listens on", () => {
    const container = gatewayContainer(all);
    const http = container.ports.find((port: { name: string }) => port.name === "http");
    expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });
    expect(container.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    const listen = container.args[container.args.indexOf("--http") + 1];
    expect(listen).toBe(`0.0.0.0:${http.containerPort}`);
    // Every option the Deployment passes is one `serve` (or every command) really takes.
    const known = new Set(
      [...Object.keys(serveCommand.flags), ...Object.keys(GLOBAL_FLAGS)].map((name) => `--${name}`),
    );
    const options = (container.args as string[]).filter((arg) => arg.startsWith("--"));
    expect(options.filter((option) => !known.has(option))).toEqual([]);
  });

  it("requires the bearer token from a Secret and runs as a non-root user with a read-only root", () => {
    const deployment = all.get("Deployment");
    const container = gatewayContainer(all);
    const env = container.env.find((entry: { name: string }) => entry.name === TOKENS_ENV);
    expect(env.valueFrom.secretKeyRef).toEqual({ name: all.get("Secret")?.metadata.name, key: "token" });
    expect(deployment?.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
    expect(container.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
    });
    const configArg = container.args[container.args.indexOf("--config") + 1];
    const mount = container.volumeMounts.find((m: { name: string }) => m.name === "config");
    expect(configArg.startsWith(`${mount.mountPath}/`)).toBe(true);
    expect(Object.keys(all.get("ConfigMap")?.data ?? {})).toContain(
      configArg.slice(mount.mountPath.length + 1),
    );
  });

  it("points the Service and the autoscaler at the Deployment", () => {
    const deployment = all.get("Deployment");
    const labels = deployment?.spec.template.metadata.labels;
    expect(all.get("Service")?.spec.selector).toEqual(labels);
    expect(deployment?.spec.selector.matchLabels).toEqual(labels);
    expect(all.get("Service")?.spec.ports.map((port: { targetPort: string }) => port.targetPort)).toContain(
      "http",
    );
    expect(all.get("HorizontalPodAutoscaler")?.spec.scaleTargetRef).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: deployment?.metadata.name,
    });
    expect(all.get("HorizontalPodAutoscaler")?.spec.minReplicas).toBeGreaterThanOrEqual(2);
  });

  it("scales on the tool calls in flight per pod, not CPU, and lets one pod go at a time", () => {
    const metrics = all.get("HorizontalPodAutoscaler")?.spec.metrics as { type: string }[];
    // The gauge's name is checked against what a real gateway exports in test/telemetry/prometheus.test.ts.
    expect(metrics).toEqual([
      {
        type: "Pods",
        pods: {
          metric: { name: "mcp_bridge_gateway_calls_in_flight" },
          target: { type: "AverageValue", averageValue: expect.any(String) },
        },
      },
    ]);
    const budget = all.get("PodDisruptionBudget");
    expect(budget?.spec.maxUnavailable).toBe(1);
    expect(budget?.spec.selector.matchLabels).toEqual(all.get("Deployment")?.spec.selector.matchLabels);
  });

  it("runs the same command in the image and the Deployment", () => {
    const dockerfile = readFileSync(join(process.cwd(), "deploy/Dockerfile"), "utf8");
    expect(dockerfile).toMatch(/^FROM node:22-slim$/m);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toMatch(/^USER node$/m);
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    const args = JSON.parse(cmd ?? "[]") as string[];
    // The Deployment adds the metrics listener (a port of its own) and the cluster's shared parts
    // (store, keys, the pod's identity); otherwise the command is the image's.
    const deploymentArgs = gatewayContainer(all).args as string[];
    const added = [
      "--metrics",
      "--store",
      "--state-keys",
      "--cluster-secret-file",
      "--replica-id",
      "--advertise-url",
    ].map((flag) => deploymentArgs.indexOf(flag));
    expect(args).toEqual(
      deploymentArgs.filter((_, index) => !added.some((flag) => index === flag || index === flag + 1)),
    );
  });
});

describe("Envoy in front (deploy/envoy/envoy.yaml)", () => {
  // biome-ignore lint/suspicious/noExplicitAny: Envoy's config is checked field by field below
  const config = parse(readFileSync(join(process.cwd(), "deploy/envoy/envoy.yaml"), "utf8")) as any;
  const [listener] = config.static_resources.listeners;
  const [chain] = listener.filter_chains;
  const manager = chain.filters[0].typed_config;

  it("terminates TLS and checks a JWT before routing, then forwards it for the gateway to check again", () => {
    expect(chain.transport_socket.typed_config["@type"]).toMatch(/DownstreamTlsContext$/);
    const filters = manager.http_filters.map((f: { name: string }) => f.name);
    expect(filters).toEqual(["envoy.filters.http.jwt_authn", "envoy.filters.http.router"]);
    const jwt = manager.http_filters[0].typed_config;
    const provider = Object.values(jwt.providers)[0] as {
      forward: boolean;
      remote_jwks: { http_uri: { cluster: string } };
    };
    expect(provider.forward).toBe(true);
    const clusters = config.static_resources.clusters.map((c: { name: string }) => c.name);
    expect(clusters).toContain(provider.remote_jwks.http_uri.cluster);
    // Everything but the public OAuth metadata needs the token.
    expect(jwt.rules.at(-1)).toEqual({
      match: { prefix: "/" },
      requires: { provider_name: Object.keys(jwt.providers)[0] },
    });
  });

  it("routes /mcp and every REST path to the gateway Service, without affinity", () => {
    const routes = manager.route_config.virtual_hosts[0].routes as {
      match: { path?: string; prefix?: string; safe_regex?: { regex: string } };
      route: { cluster: string; hash_policy?: unknown };
    }[];
    const routed = (path: string) =>
      routes.find(
        (r) =>
          r.match.path === path ||
          (r.match.prefix !== undefined && path.startsWith(r.match.prefix)) ||
          (r.match.safe_regex && new RegExp(`^${r.match.safe_regex.regex}$`).test(path)),
      )?.route;
    for (const path of [
      "/mcp",
      "/openapi.json",
      "/tools",
      "/tools/github_search",
      "/servers",
      "/resources",
      "/prompts",
    ])
      expect(routed(path)?.cluster, path).toBe("mcp_bridge_gateway");
    expect(routed("/admin")).toBeUndefined();
    expect(routes.some((r) => r.route.hash_policy !== undefined)).toBe(false);
    const gateway = config.static_resources.clusters.find(
      (c: { name: string }) => c.name === "mcp_bridge_gateway",
    );
    const address = gateway.load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address;
    expect(address.address.split(".")[0]).toBe(
      parseAllDocuments(readFileSync(join(k8sDir, "service.yaml"), "utf8"))[0]?.toJS().metadata.name,
    );
  });
});
