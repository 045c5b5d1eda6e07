import type { ElicitationHandler, ElicitationResponse } from "../../bridge/api.js";
import type { CliIO } from "./cli-io.js";
import { stopSpinner } from "./progress-pause.js";
import { ask, canAsk, clean } from "./terminal-ask.js";

interface FieldSchema {
  readonly type?: string;
  readonly title?: string;
  readonly description?: string;
  readonly enum?: readonly unknown[];
}

/** Asks one question and resolves with the answer line (undefined when input ended). */
export type AskLine = (question: string) => Promise<string | undefined>;

/**
 * Answers a server's `elicitation/create` by asking the person at the terminal, field by field. The
 * server's own defaults are never filled in for them. Without a terminal there is nobody to ask:
 * undefined, so the bridge's default declines. A command that already reads the terminal (chat)
 * passes its own `askLine`, so two readers never compete for the same keystrokes.
 */
export function terminalElicitation(io: CliIO, askLine?: AskLine): ElicitationHandler | undefined {
  if (!askLine && !canAsk(io)) return undefined;
  const question: AskLine = askLine ?? ((text) => ask(io, text));
  return async (request): Promise<ElicitationResponse> => {
    stopSpinner(io.stderr);
    io.stderr.write(`\nServer "${clean(request.server)}" asks: ${clean(request.message)}\n`);
    const answerIt = (await question("Answer it? [y/N] ")) ?? "";
    if (!/^\s*y(es)?\s*$/i.test(answerIt)) return { action: "decline" };
    const schema = request.requestedSchema ?? {};
    const properties = (schema.properties ?? {}) as Record<string, FieldSchema>;
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const content: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(properties)) {
      const choices = Array.isArray(field.enum) ? ` (${field.enum.map(String).join("/")})` : "";
      const kind = field.type === "boolean" ? " (y/n)" : choices;
      const optional = required.has(name) ? "" : " (optional, Enter to skip)";
      const about = field.description ? ` - ${field.description}` : "";
      const answer = await question(
        `  ${clean(field.title ?? name)}${clean(about)}${clean(kind)}${optional}: `,
      );
      if (answer === undefined) return { action: "cancel" };
      if (answer === "") {
        if (required.has(name)) return { action: "decline" };
        continue;
      }
      const value = convert(answer, field);
      if (value === undefined) {
        io.stderr.write(`"${clean(answer)}" is not a valid ${field.type ?? "value"}; declined.\n`);
        return { action: "decline" };
      }
      content[name] = value;
    }
    return { action: "accept", content };
  };
}

function convert(answer: string, field: FieldSchema): unknown {
  if (field.type === "boolean") {
    if (/^(y|yes|true)$/i.test(answer)) return true;
    if (/^(n|no|false)$/i.test(answer)) return false;
    return undefined;
  }
  if (field.type === "number" || field.type === "integer") {
    const number = Number(answer);
    if (!Number.isFinite(number) || (field.type === "integer" && !Number.isInteger(number))) return undefined;
    return number;
  }
  if (Array.isArray(field.enum) && !field.enum.map(String).includes(answer)) return undefined;
  return answer;
}
