import type { ToolEntry } from "../../../bridge/api.js";
import type { ToolResult } from "../../../results/tool-result.js";
import type { AgentEvent } from "../../agent/agent.js";
import type { AgentToolCall } from "../../agent/model-provider.js";
import type { Style } from "../output.js";
import { shorten } from "../output.js";
import { terminalText } from "../terminal.js";
import { MarkdownLines } from "./markdown.js";

/**
 * What the chat shows: the model's streamed text, one line per tool call (server, tool, shortened
 * arguments, live progress, duration, a short result or the error code). Everything that came from
 * a server or the model goes through `terminalText` first: no escape sequence from them reaches the
 * terminal. On a terminal the progress line is redrawn in place; otherwise each update is a line.
 */

/** "1,234 in, 56 out": token counts as the chat shows them; an endpoint that reports none says so. */
export function tokenCounts(usage: { inputTokens: number; outputTokens: number }): string {
  if (usage.inputTokens === 0 && usage.outputTokens === 0) return "not reported by the endpoint";
  return `${usage.inputTokens.toLocaleString("en-US")} in, ${usage.outputTokens.toLocaleString("en-US")} out`;
}

/** "1 tool", "2 tools": a count with its noun in the right number. */
export function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export interface ChatOutput {
  write(text: string): void;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export class ChatView {
  readonly #out: ChatOutput;
  readonly #style: Style;
  /** Where tool lines and notes go when they must not mix with the answer (`chat -p`: stderr). */
  readonly #side: ChatView | undefined;
  #midLine = false;
  #progressShown = false;
  /** A spinner with the elapsed time while the model thinks or tools run without progress (terminal only). */
  #spinner: { readonly label: string; readonly started: number; readonly timer: NodeJS.Timeout } | undefined;
  #toolsRunning = 0;
  #held = false;
  /** On a terminal the reply is shown as rendered markdown, a complete line at a time. */
  readonly #markdown: MarkdownLines;
  #pendingLine = "";

  constructor(out: ChatOutput, style: Style, side?: { out: ChatOutput; style: Style }) {
    this.#out = out;
    this.#style = style;
    this.#side = side ? new ChatView(side.out, side.style) : undefined;
    this.#markdown = new MarkdownLines(style);
  }

  get width(): number {
    return Math.max(40, Math.min(this.#out.columns ?? 80, 120));
  }

  line(text = ""): void {
    if (this.#side) {
      this.#side.line(text);
      return;
    }
    this.#stopSpinner();
    this.#endText();
    this.#out.write(`${text}\n`);
  }

  note(text: string): void {
    this.line(this.#style.dim(text));
  }

  error(text: string): void {
    this.line(this.#style.red(`error: ${terminalText(text)}`));
  }

  event(event: AgentEvent): void {
    if (this.#side && event.type !== "text") {
      this.#side.event(event);
      return;
    }
    switch (event.type) {
      case "text": {
        const text = terminalText(event.text);
        if (!text) return;
        this.#stopSpinner();
        this.#clearProgress();
        if (this.#out.isTTY) this.#renderLines(text);
        else {
          this.#out.write(text);
          this.#midLine = !text.endsWith("\n");
        }
        return;
      }
      case "tool_start":
        this.line(
          `${this.#style.dim("  ⚙")} ${this.#label(event.call, event.entry)} ${this.#style.dim(this.#args(event.call))}`,
        );
        this.#toolsRunning++;
        this.#startSpinner("running");
        return;
      case "tool_progress": {
        const { progress } = event.progress;
        const total = event.progress.total === undefined ? "" : `/${event.progress.total}`;
        const message = event.progress.message ? ` ${terminalText(event.progress.message)}` : "";
        const text = `    … ${this.#label(event.call, event.entry)} ${progress}${total}${message}`;
        if (this.#out.isTTY) {
          this.#stopSpinner();
          this.#endText();
          this.#out.write(`\r\u001b[2K${shorten(text, this.width - 1)}`);
          this.#progressShown = true;
        } else this.line(shorten(text, this.width));
        return;
      }
      case "tool_end":
        this.#clearProgress();
        this.line(this.#ending(event.call, event.result, event.ms, event.entry));
        this.#toolsRunning = Math.max(0, this.#toolsRunning - 1);
        if (this.#toolsRunning > 0) this.#startSpinner("running");
        return;
      case "step":
        this.#startSpinner("thinking");
        return;
      case "model_end":
        this.#stopSpinner();
        return;
      case "usage":
        return;
    }
  }

  /**
   * While the person is asked something at the prompt, nothing is redrawn over the question;
   * `hold(false)` lets the spinner come back.
   */
  hold(held: boolean): void {
    if (this.#side) this.#side.hold(held);
    this.#held = held;
    if (held) this.#stopSpinner();
    else if (this.#toolsRunning > 0) this.#startSpinner("running");
  }

  /** Ends a streamed reply with a newline. */
  endTurn(): void {
    this.#toolsRunning = 0;
    this.#stopSpinner();
    this.#clearProgress();
    this.#endText();
  }

  #ending(call: AgentToolCall, result: ToolResult, ms: number, entry?: ToolEntry): string {
    const duration = this.#style.dim(`${Math.round(ms)} ms`);
    const text = terminalText(result.text).replace(/\s+/g, " ").trim();
    if (result.isError) {
      const code = /\[([A-Z_]+)\]\s*$/.exec(text)?.[1];
      const summary = shorten(
        text.replace(/^Error:\s*/, "").replace(/\s*\[[A-Z_]+\]\s*$/, ""),
        this.width - 30,
      );
      return `  ${this.#style.red("✗")} ${this.#label(call, entry)} ${duration} ${this.#style.red(code ?? "ERROR")}: ${summary}`;
    }
    return `  ${this.#style.green("✓")} ${this.#label(call, entry)} ${duration} ${shorten(text || "(no text)", this.width - 30)}`;
  }

  #label(call: AgentToolCall, entry?: ToolEntry): string {
    const name = entry ? `${entry.server} › ${entry.tool}` : call.name;
    return this.#style.bold(terminalText(name));
  }

  #args(call: AgentToolCall): string {
    return shorten(terminalText(call.arguments || "{}"), Math.max(20, this.width - 30));
  }

  #startSpinner(label: string): void {
    if (!this.#out.isTTY || this.#held || this.#midLine || this.#progressShown) return;
    this.#stopSpinner();
    const started = performance.now();
    const draw = () => {
      const seconds = Math.floor((performance.now() - started) / 1000);
      const frame = SPINNER[Math.floor((performance.now() - started) / 100) % SPINNER.length];
      this.#out.write(`\r\u001b[2K${this.#style.dim(`${frame} ${label}… ${seconds}s`)}`);
    };
    const timer = setInterval(draw, 100);
    timer.unref();
    this.#spinner = { label, started, timer };
    draw();
  }

  #stopSpinner(): void {
    if (!this.#spinner) return;
    clearInterval(this.#spinner.timer);
    this.#spinner = undefined;
    this.#out.write("\r\u001b[2K");
  }

  #clearProgress(): void {
    if (!this.#progressShown) return;
    this.#out.write("\r\u001b[2K");
    this.#progressShown = false;
  }

  #endText(): void {
    this.#clearProgress();
    if (this.#midLine) this.#out.write("\n");
    this.#midLine = false;
    if (this.#pendingLine) this.#renderLines("\n");
    for (const line of this.#markdown.flush()) this.#out.write(`${line}\n`);
  }

  #renderLines(text: string): void {
    this.#pendingLine += text;
    for (let end = this.#pendingLine.indexOf("\n"); end !== -1; end = this.#pendingLine.indexOf("\n")) {
      const source = this.#pendingLine.slice(0, end);
      this.#pendingLine = this.#pendingLine.slice(end + 1);
      for (const line of this.#markdown.line(source)) this.#out.write(`${line}\n`);
    }
  }
}
