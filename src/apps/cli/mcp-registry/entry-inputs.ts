import type { KeyValueInput, RegistryArgument } from "./registry-api.js";

/**
 * The values a registry entry leaves to the user: its environment variables, its headers, the
 * arguments that declare no fixed `value`, and the `{variables}` inside values. Each becomes an
 * `Input` the add command fills (from --var, a terminal answer, the declared default) or, for a
 * secret, writes as `${VAR}` to be read from the environment at start: a secret never goes into the file.
 */

export interface Input {
  /** The name the user gives a value for (`--var KEY=VALUE`): the variable, header or hint name. */
  readonly key: string;
  readonly description: string;
  readonly required: boolean;
  readonly secret: boolean;
  readonly default?: string;
  readonly choices?: readonly string[];
}

/** What the user gave or was asked: a value, or `undefined` to leave an optional input out. */
export type Answer = (input: Input) => string | undefined;

/** `{name}` in a value, replaced from the entry's own variables (left as it is when not declared). */
const PLACEHOLDER = /\{([A-Za-z0-9_.-]+)\}/g;

/** An environment variable's name for a secret given as a header or argument (`X-API-Key` -> X_API_KEY). */
export function variableName(key: string): string {
  const name = key.replace(/[^A-Za-z0-9_]/g, "_").toUpperCase();
  return /^[A-Za-z_]/.test(name) ? name : `_${name}`;
}

function inputOf(key: string, spec: KeyValueInput | RegistryArgument | Record<string, unknown>): Input {
  const s = spec as {
    description?: string;
    isRequired?: boolean;
    isSecret?: boolean;
    default?: string;
    choices?: string[];
  };
  return {
    key,
    description: s.description ?? "",
    required: s.isRequired === true,
    secret: s.isSecret === true,
    ...(s.default !== undefined ? { default: s.default } : {}),
    ...(s.choices !== undefined ? { choices: s.choices } : {}),
  };
}

/** The inputs an entry's value needs: itself when it has no fixed value, else its `{variables}`. */
export function inputsOf(key: string, spec: KeyValueInput | RegistryArgument): Input[] {
  if (spec.value === undefined) return [inputOf(key, spec)];
  const variables = spec.variables ?? {};
  const found: Input[] = [];
  for (const match of spec.value.matchAll(PLACEHOLDER)) {
    const name = match[1] as string;
    const variable = variables[name];
    if (variable && !found.some((i) => i.key === name)) found.push(inputOf(name, variable));
  }
  return found;
}

/**
 * The value to write for `spec`: its fixed value with the variables filled in, or the answer for it.
 * Undefined when it is optional and unanswered (it is left out).
 */
export function filledValue(
  key: string,
  spec: KeyValueInput | RegistryArgument,
  answer: Answer,
): string | undefined {
  if (spec.value === undefined) return answer(inputOf(key, spec));
  const variables = spec.variables ?? {};
  let missing = false;
  const value = spec.value.replace(PLACEHOLDER, (whole, name: string) => {
    const variable = variables[name];
    if (!variable) return whole;
    const given = answer(inputOf(name, variable));
    if (given === undefined) missing = true;
    return given ?? "";
  });
  return missing ? undefined : value;
}
