import type { Interface } from "node:readline";
import type { Style } from "../output.js";
import type { ChatView } from "./view.js";

type Keypress = { ctrl?: boolean; meta?: boolean; name?: string };
/** What the chat reads keys from (stdin): readline's keypress events, emitted on it. */
export type KeySource = NodeJS.ReadableStream;

/**
 * The questions the chat asks at its prompt, one at a time: readline drops a question asked while
 * another is pending, and a tool approval, a server's sampling request and its elicitation can all
 * arrive together. A question whose signal aborts (a server withdrew its request) is taken back: no
 * late answer.
 */
export class ChatQuestions {
  #asking: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly rl: Interface,
    private readonly input: KeySource,
    private readonly out: { write(text: string): unknown },
    private readonly view: ChatView,
  ) {}

  /** A question answered by a line; undefined when its signal aborted first. */
  readonly ask = (question: string, signal?: AbortSignal): Promise<string | undefined> =>
    this.#inTurn(
      () =>
        new Promise<string | undefined>((done) => {
          if (signal?.aborted) return done(undefined);
          this.view.hold(true);
          const answered = (answer: string | undefined) => {
            this.view.hold(false);
            done(answer);
          };
          signal?.addEventListener("abort", () => answered(undefined), { once: true });
          this.rl.question(question, signal ? { signal } : {}, answered);
        }),
    );

  /**
   * A question a single key answers (y/n/a...): no Enter, and readline never sees a line, so the answer
   * stays out of the input history. Enter with a typed word answers too; Ctrl-C answers no.
   */
  readonly askKey = (question: string, keys: string): Promise<string | undefined> =>
    this.#inTurn(
      () =>
        new Promise<string | undefined>((done) => {
          const taken = new AbortController();
          const settle = (value: string | undefined) => {
            this.input.off("keypress", onKey);
            taken.abort();
            this.view.hold(false);
            done(value);
          };
          const onKey = (text: string | undefined, key: Keypress) => {
            if (key?.ctrl && key.name === "c") return settle("n");
            const letter = text?.toLowerCase();
            if (key?.ctrl || key?.meta || !letter || letter.length !== 1 || !keys.includes(letter)) return;
            // readline has put the key into its line: empty the line, then show the answer.
            this.rl.write(null, { ctrl: true, name: "u" });
            this.out.write(`${letter}\n`);
            settle(letter);
          };
          this.input.on("keypress", onKey);
          this.view.hold(true);
          this.rl.question(question, { signal: taken.signal }, (line) => settle(line));
        }),
    );

  #inTurn<T>(question: () => Promise<T>): Promise<T> {
    const answer = this.#asking.then(question);
    this.#asking = answer.catch(() => {});
    return answer;
  }
}

export interface ChatLoopOptions {
  readonly rl: Interface;
  readonly input: KeySource;
  readonly out: { write(text: string): unknown };
  readonly view: ChatView;
  readonly style: Style;
  /** Input from a terminal (else piped: the chat ends once every line is answered). */
  readonly tty: boolean;
  /** Answers one line (or lines joined by continuations); "exit" ends the chat. */
  readonly handle: (line: string, signal: AbortSignal) => Promise<unknown>;
  /** Ends the chat from outside (the CLI's own signal). */
  readonly signal?: AbortSignal | undefined;
  /** Called once when the chat ends, before the line reader closes. */
  readonly onFinish: () => void;
  /** The clock of the double Ctrl-C (ms). */
  readonly now?: () => number;
}

/**
 * The chat's input loop: lines (continued by a trailing backslash or Alt-Enter) are queued and answered
 * one at a time; Ctrl-C stops the running turn, or at the prompt clears the line (twice within 2 s
 * leaves); Ctrl-D on a terminal leaves at once, piped input after its last line is answered.
 */
export class ChatLoop {
  #running: AbortController | undefined;
  #lastInterrupt = 0;
  #finished = false;
  #busy = false;
  #inputEnded = false;
  readonly #queue: string[] = [];
  #continued: string[] = [];
  #done: (code: number) => void = () => {};

  constructor(private readonly options: ChatLoopOptions) {}

  /** Whether a turn is being answered (then no prompt is shown). */
  get running(): boolean {
    return this.#running !== undefined;
  }

  /** Runs until the chat ends; resolves to the exit code. */
  run(): Promise<number> {
    const { rl, tty, input, signal } = this.options;
    return new Promise<number>((done) => {
      this.#done = done;
      signal?.addEventListener("abort", () => this.finish(), { once: true });
      rl.on("SIGINT", () => this.#interrupt());
      // readline ignores Alt-Enter: the typed line is taken here, and a new one begins below it.
      if (tty) input.on("keypress", (_text: string, key: Keypress) => this.#altEnter(key));
      rl.on("line", (line) => this.#line(line));
      rl.on("close", () => {
        this.#inputEnded = true;
        if (tty || (!this.#busy && this.#queue.length === 0)) this.finish();
      });
      if (tty) rl.prompt();
    });
  }

  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.options.onFinish();
    this.#running?.abort();
    this.options.rl.close();
    this.#done(0);
  }

  #interrupt(): void {
    const { rl, view } = this.options;
    if (this.#running) {
      this.#running.abort();
      return;
    }
    const now = (this.options.now ?? Date.now)();
    if (now - this.#lastInterrupt < 2000) {
      this.finish();
      return;
    }
    this.#lastInterrupt = now;
    rl.write(null, { ctrl: true, name: "u" });
    view.note("(Ctrl-C again or Ctrl-D to leave)");
    rl.prompt();
  }

  #altEnter(key: Keypress): void {
    if (!key?.meta || (key.name !== "return" && key.name !== "enter") || this.#running) return;
    const { rl, out } = this.options;
    const line = rl.line;
    rl.write(null, { ctrl: true, name: "u" });
    out.write(`${line}\n`);
    this.#goOn(line);
  }

  #line(line: string): void {
    if (line.endsWith("\\")) {
      this.#goOn(line.slice(0, -1));
      return;
    }
    this.#queue.push([...this.#continued, line].join("\n"));
    this.#continued = [];
    this.options.rl.setPrompt(this.options.style.bold("> "));
    void this.#next();
  }

  /** A line that goes on on the next one. */
  #goOn(line: string): void {
    this.#continued.push(line);
    this.options.rl.setPrompt(this.options.style.dim("… "));
    if (this.options.tty) this.options.rl.prompt();
  }

  async #next(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    while (this.#queue.length > 0 && !this.#finished) {
      const line = this.#queue.shift() ?? "";
      this.#running = new AbortController();
      const outcome = await this.options.handle(line, this.#running.signal);
      this.#running = undefined;
      if (outcome === "exit") {
        this.finish();
        return;
      }
    }
    this.#busy = false;
    if (!this.#finished && this.options.tty) this.options.rl.prompt();
    // Piped input ends the chat once every line is answered.
    if (!this.options.tty && this.#inputEnded && this.#queue.length === 0) this.finish();
  }
}
