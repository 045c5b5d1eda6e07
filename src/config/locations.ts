import { homedir } from "node:os";

export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Where a config is read from: the environment (`${VAR}`, `$MCP_BRIDGE_CONFIG`, `$XDG_CONFIG_HOME`), the
 * working directory, the home folder and the platform. Resolved once per public entry and passed down;
 * nothing below an entry reads the process's own.
 */
export interface Locations {
  readonly env: Environment;
  readonly cwd: string;
  readonly home: string;
  readonly platform: NodeJS.Platform;
}

/** The options a public config entry takes for its locations; each defaults to the process's own. */
export interface LocationOptions {
  readonly cwd?: string;
  readonly env?: Environment;
  readonly homeDir?: string;
  readonly platform?: NodeJS.Platform;
}

/** The one place in `config/` that reads `process.env`, `process.cwd()`, `homedir()` and `process.platform`. */
export function resolveLocations(options: LocationOptions = {}): Locations {
  const env = options.env ?? process.env;
  return {
    env,
    cwd: options.cwd ?? process.cwd(),
    home: options.homeDir ?? env.HOME ?? homedir(),
    platform: options.platform ?? process.platform,
  };
}
