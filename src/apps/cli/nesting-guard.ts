import { bridgeNested } from "../../errors/cli-errors.js";
import { SERVING_ENV } from "../../util/serving-marker.js";

type Environment = Readonly<Record<string, string | undefined>>;

/** Refuses to run `command` under a bridge: its servers' environment has the marker (util/serving-marker.ts). */
export function refuseNested(env: Environment, command: string): void {
  const outer = env[SERVING_ENV];
  if (outer !== undefined && outer !== "") throw bridgeNested({ command, outer });
}

/**
 * The environment a serving bridge (`serve`, the daemon) starts its servers with: the host's, marked,
 * so a server that is this bridge again refuses. Throws when this process is itself such a server.
 */
export function servingEnvironment(env: Environment, command: string, pid = process.pid): Environment {
  refuseNested(env, command);
  return { ...env, [SERVING_ENV]: String(pid) };
}
