import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { serveCommand, TOKENS_ENV } from "../../src/apps/cli/commands/serve-command.js";
import { GLOBAL_FLAGS } from "../../src/apps/cli/parse-arguments.js";

const k8sDir = join(process.cwd(), "deploy/k8s");

interface Manifest {
  kind: string;
  metadata: { name: string };
  // biome-ignore lint/suspicious/noExplicitAny: manifests are checked field by field below
  spec?: any;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  data?: any;
  resources?: string[];
}

function manifests(): Map<string, Manifest> {
  const found = new Map<string, Manifest>();
  for (const file of readdirSync(k8sDir).filter((name) => name.endsWith(".yaml"))) {
    for (const document of parseAllDocuments(readFileSync(join(k8sDir, file), "utf8"))) {
      expect(document.errors, file).toEqual([]);
      const manifest = document.toJS() as Manifest;
      found.set(manifest.kind, manifest);
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
    // The Deployment adds the metrics listener (a port of its own); otherwise the command is the image's.
    const deploymentArgs = gatewayContainer(all).args as string[];
    const metrics = deploymentArgs.indexOf("--metrics");
    expect(args).toEqual(deploymentArgs.filter((_, index) => index !== metrics && index !== metrics + 1));
  });
});
