/**
 * The JavaScript that runs first in every sandbox (see sandbox.ts). It receives the two host
 * functions (`call`, `print`) as arguments and keeps them in its closure: the program never sees
 * them, only `tools` and `console`, which are frozen. Arguments are turned into JSON text here, in
 * the guest: a getter, a proxy or a cycle runs (or fails) inside the sandbox, and the host receives a
 * string it parses itself. Results come back as JSON text and are parsed here.
 *
 * It returns the runner: given the program's async function, a promise of its return value as JSON
 * text (or undefined).
 */
export const GUEST_PRELUDE = `(function (call, print, apiText, maxOutput) {
  "use strict";
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const api = parse(apiText);
  const show = (value) => {
    if (typeof value === "string") return value;
    if (value instanceof Error) return String(value);
    try {
      const text = stringify(value, null, 2);
      return text === undefined ? String(value) : text;
    } catch (error) {
      return String(value);
    }
  };
  const writer = (prefix) => (...values) => {
    let text = prefix + values.map(show).join(" ");
    // The host stops the program past its output limit; a longer string need not cross first.
    if (text.length > maxOutput + 1) text = text.slice(0, maxOutput + 1);
    print(text);
  };
  globalThis.console = Object.freeze({
    log: writer(""),
    info: writer(""),
    debug: writer(""),
    warn: writer("warn: "),
    error: writer("error: "),
  });
  const tools = Object.create(null);
  for (const namespace of Object.keys(api)) {
    const space = Object.create(null);
    for (const name of api[namespace]) {
      space[name] = async function (args) {
        let text;
        try {
          text = stringify(args === undefined ? {} : args);
        } catch (error) {
          throw new TypeError("tools." + namespace + "." + name + "(...) takes one plain JSON object of arguments: " + (error && error.message));
        }
        if (typeof text !== "string" || text[0] !== "{") {
          throw new TypeError("tools." + namespace + "." + name + "(...) takes one plain JSON object of arguments");
        }
        return parse(await call(namespace, name, text));
      };
    }
    tools[namespace] = Object.freeze(space);
  }
  globalThis.tools = Object.freeze(tools);
  return function run(program) {
    return program().then((value) => {
      if (value === undefined) return undefined;
      try {
        return stringify(value);
      } catch (error) {
        throw new TypeError("The program's return value is not JSON: " + (error && error.message));
      }
    });
  };
})`;

/**
 * The program as an async function expression, so it may `await` and `return` at its top level. The
 * line break before the closing brace keeps a final line comment from swallowing it.
 */
export function wrapProgram(code: string): string {
  return `(async function program() {\n${code}\n})`;
}
