import type { InputRequest, ResolveInput } from "../../config/inputs.js";
import { errorText } from "../../util/text-of.js";
import type { CliIO } from "./cli-io.js";
import { defaultInputsDir, InputStore } from "./input-store.js";
import { stopSpinner } from "./progress-pause.js";
import { ask, canAsk, clean } from "./terminal-ask.js";

/**
 * Answers `${input:id}` as VS Code does: an answer given once for a config file is remembered (see
 * InputStore) and used by later runs without asking, with or without a terminal; one not remembered
 * yet is asked on the terminal (when there is one) and then remembered. `mcp-bridge auth
 * forget-inputs` forgets them. A config given in code (no file) is asked for and never remembered.
 */
export function rememberedInputs(io: CliIO): ResolveInput {
  const asking = terminalInputs(io);
  const dir = defaultInputsDir(io.env);
  return async (request) => {
    const store = request.file === undefined ? undefined : new InputStore(dir, request.file);
    const remembered = store?.answers()[request.id];
    if (remembered !== undefined) return remembered;
    const answer = await asking?.(request);
    if (answer === undefined || !store) return answer;
    try {
      store.remember(request.id, answer);
    } catch (error) {
      // Not remembering only means being asked again next time: this run goes on with the answer.
      io.stderr.write(
        `warning: the answer to "${clean(request.id)}" is not remembered: ${clean(errorText(error))}\n`,
      );
    }
    return answer;
  };
}

/**
 * Asks for VS Code `${input:id}` values on the terminal, once per id for the whole run (a reload asks
 * nothing new), masking what is typed for `password` inputs. Answers stay in this closure only.
 * Without a terminal there is no resolver, and the entries that use an input are skipped.
 */
export function terminalInputs(io: CliIO): ResolveInput | undefined {
  if (!canAsk(io)) return undefined;
  const answers = new Map<string, string | undefined>();
  return async (request) => {
    if (answers.has(request.id)) return answers.get(request.id);
    const label = clean(request.description ?? request.id);
    const where = request.file ? ` (${clean(request.file)})` : "";
    const question = `${label}${where}: `;
    const answer = request.password ? await askMasked(io, question) : await ask(io, question);
    const value = answer === undefined || answer === "" ? undefined : answer;
    answers.set(request.id, value);
    return value;
  };
}

type RawInput = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };

/** Reads one line with echo off, writing `*` per character; Ctrl-C or Ctrl-D gives up (undefined). */
export function askMasked(io: CliIO, question: string): Promise<string | undefined> {
  const input = io.stdin as RawInput | undefined;
  if (!input?.setRawMode) return ask(io, question);
  const setRaw = input.setRawMode.bind(input);
  stopSpinner(io.stderr);
  io.stderr.write(question);
  return new Promise((resolve) => {
    let typed = "";
    const finish = (value: string | undefined) => {
      input.removeListener("data", onData);
      io.signal?.removeEventListener("abort", onAbort);
      setRaw(false);
      input.pause();
      io.stderr.write("\n");
      resolve(value);
    };
    const onAbort = () => finish(undefined);
    const onData = (chunk: Buffer | string) => {
      for (const char of String(chunk)) {
        if (char === "\r" || char === "\n") return finish(typed);
        if (char === "\u0003" || char === "\u0004") return finish(undefined);
        if (char === "\u007f" || char === "\b") {
          if (typed.length > 0) {
            typed = typed.slice(0, -1);
            io.stderr.write("\b \b");
          }
        } else if (char >= " ") {
          typed += char;
          io.stderr.write("*");
        }
      }
    };
    setRaw(true);
    input.on("data", onData);
    input.resume();
    io.signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export type { InputRequest };
