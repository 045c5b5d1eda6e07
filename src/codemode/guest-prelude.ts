/**
 * The JavaScript that runs first in every sandbox (see sandbox.ts). This function is never called in
 * the host: the worker evaluates its compiled source text (`guestPrelude.toString()`, from the built
 * file under dist/) inside QuickJS, so it must stay self-contained: no import, no name from this
 * module's scope, nothing of Node.js. It receives the two host functions (`call`, `print`) as
 * arguments and keeps them in its closure: the program never sees them, only `tools` and `console`,
 * which are frozen. Arguments are turned into JSON text here, in the guest: a getter, a proxy or a
 * cycle runs (or fails) inside the sandbox, and the host receives a string it parses itself. Results
 * come back as JSON text and are parsed here.
 *
 * It returns the runner: given the program's async function, a promise of its return value as JSON
 * text, undefined when it returned nothing, or OUTPUT_EXCEEDED when that text would take the
 * program past its output limit (what it printed plus what it returns), so that an oversized value
 * never crosses to the host.
 */
export function guestPrelude(
  call: (namespace: string, fn: string, args: string) => Promise<string>,
  print: (text: string) => void,
  apiText: string,
  maxOutput: number,
): (program: () => Promise<unknown>) => Promise<string | number | undefined> {
  // Repeated here (and checked against OUTPUT_EXCEEDED by a test): this function is evaluated alone.
  const outputExceeded = -1;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const api = parse(apiText) as Record<string, string[]>;
  let printed = 0;
  const show = (value: unknown): string => {
    if (typeof value === "string") return value;
    if (value instanceof Error) return String(value);
    try {
      const text = stringify(value, null, 2);
      return text === undefined ? String(value) : text;
    } catch {
      return String(value);
    }
  };
  const writer =
    (prefix: string) =>
    (...values: unknown[]) => {
      let text = prefix + values.map(show).join(" ");
      // The host stops the program past its output limit; a longer string need not cross first.
      if (text.length > maxOutput + 1) text = text.slice(0, maxOutput + 1);
      printed += text.length + 1;
      print(text);
    };
  const guest = globalThis as unknown as Record<string, unknown>;
  guest.console = Object.freeze({
    log: writer(""),
    info: writer(""),
    debug: writer(""),
    warn: writer("warn: "),
    error: writer("error: "),
  });
  const tools = Object.create(null) as Record<string, unknown>;
  for (const namespace of Object.keys(api)) {
    const space = Object.create(null) as Record<string, unknown>;
    for (const name of api[namespace] ?? []) {
      space[name] = async (args: unknown) => {
        let text: unknown;
        try {
          text = stringify(args === undefined ? {} : args);
        } catch (error) {
          throw new TypeError(
            `tools.${namespace}.${name}(...) takes one plain JSON object of arguments: ${(error as Error)?.message}`,
          );
        }
        if (typeof text !== "string" || text[0] !== "{") {
          throw new TypeError(`tools.${namespace}.${name}(...) takes one plain JSON object of arguments`);
        }
        return parse(await call(namespace, name, text));
      };
    }
    tools[namespace] = Object.freeze(space);
  }
  guest.tools = Object.freeze(tools);
  return (program) =>
    program().then((value) => {
      if (value === undefined) return undefined;
      let text: string | undefined;
      try {
        text = stringify(value);
      } catch (error) {
        throw new TypeError(`The program's return value is not JSON: ${(error as Error)?.message}`);
      }
      // A function or a symbol has no JSON: the program returned nothing.
      if (typeof text !== "string") return undefined;
      return printed + text.length > maxOutput ? outputExceeded : text;
    });
}

/** What the runner resolves to when the return value would pass the output limit (see guestPrelude). */
export const OUTPUT_EXCEEDED = -1;

/**
 * The program as an async function expression, so it may `await` and `return` at its top level. The
 * line break before the closing brace keeps a final line comment from swallowing it.
 */
export function wrapProgram(code: string): string {
  return `(async function program() {\n${code}\n})`;
}
