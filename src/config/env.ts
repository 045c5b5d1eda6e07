import { McpBridgeError } from "../errors/error-classes.js";
import { secretNotFound } from "../errors/secret-errors.js";
import { openSecretStore, type SecretStore } from "../util/secret-store.js";

/** A `${keyring:NAME}` looked up: the value, or the error to report (a missing secret, a store failure). */
export type SecretLookup =
  | { readonly ok: true; readonly value: string }
  | { readonly ok: false; readonly error: Error };

export interface ExpansionContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `${workspaceFolder}`: the project directory of the config file. */
  readonly workspaceFolder?: string;
  /** `${configDir}`: the directory of the config file. */
  readonly configDir?: string;
  /** `~/` and `${userHome}`: the home folder (resolved once by the config entry, see locations.ts). */
  readonly homeDir: string;
  /** Answers to VS Code `${input:id}` prompts, by id (asked for before loading; kept in memory only). */
  readonly inputs?: Readonly<Record<string, string>>;
  /**
   * `${keyring:NAME}`: looks a secret up. Default: the store `env` chooses (MCP_BRIDGE_SECRET_STORE),
   * opened on the first `${keyring:…}` only, so a config without one never loads the keychain binding.
   */
  readonly secret?: (name: string) => SecretLookup;
}

export type Expansion =
  | { readonly ok: true; readonly value: string }
  | { readonly ok: false; readonly reason: "unset"; readonly variable: string }
  | { readonly ok: false; readonly reason: "input"; readonly variable: string }
  | { readonly ok: false; readonly reason: "secret"; readonly variable: string; readonly error: Error };

const PATTERN = /\$\{([^}]*)\}/g;

/**
 * Expands `${VAR}`, `${VAR:-default}`, `${env:VAR}` (Cursor, VS Code), `${workspaceFolder}`,
 * `${configDir}` and a leading `~/`. Values are substituted once, never re-expanded, so a variable
 * whose value contains `${...}` cannot loop. Each value substituted from the environment (not a
 * default, not a folder) is pushed onto `fromEnv`, so output can mask it wherever it ends up.
 */
export function expand(
  value: string,
  context: ExpansionContext,
  fromEnv?: { variable: string; value: string }[],
): Expansion {
  let failure: Expansion | undefined;
  let result = value.replace(PATTERN, (whole, inner: string) => {
    if (failure) return whole;
    if (inner.startsWith("input:")) {
      const answer = context.inputs?.[inner.slice(6)];
      if (answer !== undefined) {
        // Inputs are mostly secrets (API keys typed in): mask them like values from the environment.
        fromEnv?.push({ variable: inner, value: answer });
        return answer;
      }
      failure = { ok: false, reason: "input", variable: inner };
      return whole;
    }
    if (inner.startsWith("keyring:")) {
      const found = (context.secret ?? storeLookup(context.env))(inner.slice(8));
      if (found.ok) {
        // A secret is masked wherever it lands, whatever its length or the field's name.
        fromEnv?.push({ variable: inner, value: found.value });
        return found.value;
      }
      failure = { ok: false, reason: "secret", variable: inner, error: found.error };
      return whole;
    }
    if (inner === "workspaceFolder" && context.workspaceFolder !== undefined) return context.workspaceFolder;
    if (inner === "configDir" && context.configDir !== undefined) return context.configDir;
    if (inner === "userHome") return context.homeDir;
    const name = inner.startsWith("env:") ? inner.slice(4) : inner;
    const separator = name.indexOf(":-");
    const variable = separator >= 0 ? name.slice(0, separator) : name;
    const fallback = separator >= 0 ? name.slice(separator + 2) : undefined;
    const found = context.env[variable];
    if (found !== undefined && found !== "") {
      fromEnv?.push({ variable, value: found });
      return found;
    }
    if (fallback !== undefined) return fallback;
    if (found !== undefined) return found;
    failure = { ok: false, reason: "unset", variable };
    return whole;
  });
  if (failure) return failure;
  if (result === "~" || result.startsWith("~/")) result = context.homeDir + result.slice(1);
  return { ok: true, value: result };
}

/** One store per environment object: a config's many `${keyring:…}` open it (and derive a file key) once. */
const stores = new WeakMap<object, (name: string) => SecretLookup>();

/** Looks secrets up in the store `env` chooses; every failure becomes a SecretLookup, never a throw. */
export function storeLookup(env: ExpansionContext["env"]): (name: string) => SecretLookup {
  let lookup = stores.get(env);
  if (!lookup) {
    let store: SecretStore | undefined;
    lookup = (name) => {
      try {
        store ??= openSecretStore(env);
        const value = store.get(name);
        return value === undefined
          ? { ok: false, error: secretNotFound({ name, store: store.where }) }
          : { ok: true, value };
      } catch (error) {
        return { ok: false, error: error instanceof McpBridgeError ? error : new Error(String(error)) };
      }
    };
    stores.set(env, lookup);
  }
  return lookup;
}
