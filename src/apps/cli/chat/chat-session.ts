import type { Bridge, CallApprovalRequest, ToolEntry } from "../../../bridge/api.js";
import { isRemote, type RemoteServerDefinition } from "../../../config/model.js";
import { isMcpBridgeError } from "../../../errors/index.js";
import { errorText } from "../../../util/text-of.js";
import { Agent, type ApproveToolCall } from "../../agent/agent.js";
import type { AgentToolCall, ModelProvider } from "../../agent/model-provider.js";
import type { LoginOutcome } from "../oauth-login.js";
import type { Style } from "../output.js";
import { shorten, table } from "../output.js";
import { terminalText } from "../terminal.js";
import { ownDescription } from "../tools-view.js";
import { approvalFor, approvalReason } from "./approval.js";
import { attachResources, promptList, promptMessages, resourceList } from "./context-items.js";
import { type ChatView, counted, tokenCounts } from "./view.js";

/**
 * One chat: the conversation, the servers switched off for this session, and the tools the person
 * allowed for good. `handle` takes one line typed at the prompt: a slash command or a message.
 */

export const CHAT_HELP = `Type a message to talk to the model; it calls the servers' tools as it needs them.
  /mcp                       servers and their state
  /mcp tools [SERVER]        the tools the model can call
  /mcp resources             resources to attach: write @SERVER:URI in a message
  /mcp prompts               server prompts: /SERVER:PROMPT key=value inserts one
  /mcp reload                re-read the config (changed servers restart)
  /mcp restart SERVER        stop a server and start it again
  /mcp auth SERVER           log in to a remote server (OAuth), then restart it
  /mcp enable|disable SERVER offer a server's tools to the model or not (this session)
  /clear                     start a new conversation
  /help                      this help
  /exit                      leave (or Ctrl-D); Ctrl-C cancels a running answer`;

export interface ChatSessionOptions {
  readonly bridge: Bridge;
  readonly provider: ModelProvider;
  readonly view: ChatView;
  readonly style: Style;
  readonly system?: string;
  /** Run every tool without asking (`--yes`). */
  readonly yes?: boolean;
  /** Asks the person a question on the terminal; undefined without a terminal. */
  readonly ask?: (question: string) => Promise<string | undefined>;
  /**
   * Asks for one of `keys` (single letters), answered by that key alone, without Enter; the answer
   * is not kept in the input history. Undefined: `ask` is used.
   */
  readonly askKey?: (question: string, keys: string) => Promise<string | undefined>;
  /** The OAuth login of a remote server (as `mcp-bridge auth login`); undefined where there is none. */
  readonly login?: (server: RemoteServerDefinition, signal?: AbortSignal) => Promise<LoginOutcome>;
}

export class ChatSession {
  readonly agent: Agent;
  readonly #options: ChatSessionOptions;
  readonly #disabled = new Set<string>();
  readonly #alwaysAllowed = new Set<string>();
  /** The model's calls the person said yes to in this step: a policy `ask` on them is already answered. */
  readonly #personApproved = new Set<string>();
  /** Tokens of every turn of this session (the endpoint's own counts). */
  readonly usage = { inputTokens: 0, outputTokens: 0 };

  constructor(options: ChatSessionOptions) {
    this.#options = options;
    this.agent = new Agent({
      bridge: options.bridge,
      provider: options.provider,
      system: options.system || undefined,
      tools: () => options.bridge.tools().filter((tool) => !this.#disabled.has(tool.server)),
      approve: this.#approve,
      approveCall: this.#approvePolicy,
      onEvent: (event) => options.view.event(event),
    });
  }

  /** One line from the prompt; resolves "exit" when the person asked to leave. */
  async handle(line: string, signal?: AbortSignal): Promise<"exit" | undefined> {
    const input = line.trim();
    if (!input) return undefined;
    const { view, bridge } = this.#options;
    if (/^\/[^\s:/]+:\S/.test(input)) {
      const inserted = await promptMessages(bridge, input);
      if ("error" in inserted) view.error(inserted.error);
      else {
        this.agent.append(...inserted.messages);
        view.note(
          `(inserted ${counted(inserted.messages.length, "message")} of ${terminalText(inserted.name)}; type your message)`,
        );
      }
      return undefined;
    }
    if (input.startsWith("/")) return this.#command(input, signal);
    const attached = await attachResources(bridge, input, signal);
    for (const name of attached.attached) view.note(`(attached ${name})`);
    for (const failure of attached.failed) view.error(`could not attach ${failure}`);
    try {
      const turn = await this.agent.run(attached.content, { signal });
      view.endTurn();
      this.usage.inputTokens += turn.usage.inputTokens;
      this.usage.outputTokens += turn.usage.outputTokens;
      if (turn.usage.inputTokens + turn.usage.outputTokens > 0)
        view.note(`(tokens: ${tokenCounts(turn.usage)}; session: ${tokenCounts(this.usage)})`);
      if (turn.stopReason === "max_steps")
        view.note("(stopped: the model kept calling tools past the step limit)");
    } catch (error) {
      view.endTurn();
      if (isMcpBridgeError(error) && error.code === "ABORTED") view.note("(cancelled)");
      else view.error(errorText(error));
    }
    return undefined;
  }

  async #command(input: string, signal?: AbortSignal): Promise<"exit" | undefined> {
    const { view, bridge } = this.#options;
    const [command = "", sub, ...rest] = input.split(/\s+/);
    switch (command) {
      case "/exit":
      case "/quit":
        return "exit";
      case "/help":
        view.line(CHAT_HELP);
        return undefined;
      case "/clear":
        this.agent.clear();
        view.note("(new conversation)");
        return undefined;
      case "/mcp":
        break;
      default:
        view.error(`Unknown command ${command}. Type /help for the commands.`);
        return undefined;
    }
    switch (sub) {
      case undefined:
        view.line(this.#statusTable());
        return undefined;
      case "tools":
        view.line(this.#toolList(rest[0]));
        return undefined;
      case "resources":
      case "prompts":
        try {
          // Servers still starting would be missing from the list: wait for them (each start is bounded).
          await bridge.ready();
          view.line(await (sub === "resources" ? resourceList(bridge) : promptList(bridge)));
        } catch (error) {
          view.error(errorText(error));
        }
        return undefined;
      case "reload": {
        view.note("reloading the config...");
        try {
          const summary = await bridge.reload();
          await bridge.ready();
          const parts = (["restarted", "added", "removed", "unchanged"] as const)
            .filter((key) => summary[key].length > 0)
            .map((key) => `${key}: ${summary[key].join(", ")}`);
          view.line(parts.length > 0 ? parts.join("; ") : "no servers configured");
        } catch (error) {
          view.error(`reload failed: ${errorText(error)}`);
        }
        return undefined;
      }
      case "restart":
        if (!rest[0]) view.error("Usage: /mcp restart SERVER");
        else await this.#restart(rest[0]);
        return undefined;
      case "auth":
        await this.#login(rest[0], signal);
        return undefined;
      case "enable":
      case "disable": {
        const name = rest[0];
        if (!name || !bridge.servers().some((s) => s.name === name)) {
          view.error(
            `Usage: /mcp ${sub} SERVER (one of: ${bridge
              .servers()
              .map((s) => s.name)
              .join(", ")})`,
          );
          return undefined;
        }
        if (sub === "disable") this.#disabled.add(name);
        else this.#disabled.delete(name);
        view.note(`${name}: ${sub}d for this session`);
        return undefined;
      }
      default:
        view.error(`Unknown /mcp command "${sub}". Type /help for the commands.`);
        return undefined;
    }
  }

  async #restart(name: string): Promise<void> {
    const { view, bridge } = this.#options;
    view.note(`restarting ${terminalText(name)}...`);
    try {
      const status = await bridge.restart(name);
      view.note(`${terminalText(name)}: restarted${status.pid === undefined ? "" : ` (pid ${status.pid})`}`);
    } catch (error) {
      // A start failure was announced with the server's state change; say the rest (unknown, disabled).
      if (bridge.server(name)?.state !== "failed") view.error(errorText(error));
    }
  }

  async #login(name: string | undefined, signal: AbortSignal | undefined): Promise<void> {
    const { view, bridge, login } = this.#options;
    const remotes = bridge.config.servers.filter((s): s is RemoteServerDefinition => isRemote(s.transport));
    const server = remotes.find((s) => s.name === name);
    if (!server) {
      const names = remotes.map((s) => s.name).join(", ") || "none";
      view.error(`Usage: /mcp auth SERVER, a remote (HTTP or SSE) server (remote servers: ${names})`);
      return;
    }
    if (!login) {
      view.error(`Log in with \`mcp-bridge auth login ${server.name}\`, then /mcp restart ${server.name}.`);
      return;
    }
    view.note(`logging in to ${server.name}...`);
    const outcome = await login(server, signal).catch(
      (error: unknown): LoginOutcome => ({ ok: false, message: errorText(error) }),
    );
    if (!outcome.ok) {
      view.error(outcome.message);
      return;
    }
    view.note(
      `logged in to ${server.name}; the token is stored in ${terminalText(outcome.file)} (mode 0600)`,
    );
    await this.#restart(server.name);
  }

  #statusTable(): string {
    const { style, bridge } = this.#options;
    const servers = bridge.servers();
    if (servers.length === 0) return "No servers configured.";
    const rows = servers.map((s) => {
      const state = this.#disabled.has(s.name) ? "disabled (session)" : s.state;
      const colored =
        state === "connected" ? style.green(state) : state === "failed" ? style.red(state) : style.dim(state);
      // The server's own count: in code mode the model's tools are the meta-tools, not the server's.
      const tools = s.state === "connected" ? String(s.toolCount) : "-";
      return [s.name, s.transport, colored, tools, shorten(terminalText(s.lastError?.message ?? ""), 60)];
    });
    return table(["SERVER", "TRANSPORT", "STATE", "TOOLS", "ERROR"], rows, style);
  }

  #toolList(server: string | undefined): string {
    const { bridge, style } = this.#options;
    const tools = bridge.tools({ server: server || undefined });
    if (tools.length === 0) return server ? `No tools from "${server}".` : "No tools yet.";
    const rows = tools.map((t) => [
      style.bold(terminalText(t.name)),
      `${shorten(terminalText(ownDescription(t)), 70)}${this.#disabled.has(t.server) ? style.dim(" (disabled)") : ""}`,
    ]);
    // Aligned as every CLI table; the head row is dropped (the command says what is listed).
    return table(["", ""], rows, style).split("\n").slice(1).join("\n");
  }

  /**
   * Asks the person before a tool runs unless `--yes`, the server's `trust` or the tool's read-only
   * hint says it may run (see approval.ts); `a` allows the tool for the rest of the session.
   */
  readonly #approve: ApproveToolCall = async (call: AgentToolCall, entry: ToolEntry) => {
    const { yes, ask, view, bridge } = this.#options;
    // The tools offered leave disabled servers out, so this is a second lock on the same door.
    if (this.#disabled.has(entry.server)) return false;
    if (yes || this.#alwaysAllowed.has(`${entry.server}\0${entry.tool}`)) return true;
    const trust = bridge.config.servers.find((server) => server.name === entry.server)?.trust;
    const approval = approvalFor(entry, trust);
    if (approval.run) return true;
    const label = terminalText(`${entry.server} › ${entry.tool}`);
    if (!ask) {
      view.note(
        `(not running ${label}: it ${approvalReason(approval.reason)} and there is no terminal to ask; use --yes, or trust = true on the server)`,
      );
      return false;
    }
    const reason = approvalReason(approval.reason);
    const args = terminalText(call.arguments || "{}");
    for (;;) {
      const question = `Run ${label} ${shorten(args, 60)}? It ${reason}. [y]es / [n]o / [a]lways / [f]ull arguments: `;
      const answer = await this.#answer(question);
      if (answer === "f" || answer === "full") {
        view.line(fullArguments(call.arguments));
        continue;
      }
      if (answer === "a" || answer === "always") {
        this.#alwaysAllowed.add(`${entry.server}\0${entry.tool}`);
        this.#personApproved.add(call.id);
        return true;
      }
      const yes = answer === "y" || answer === "yes";
      if (yes) this.#personApproved.add(call.id);
      return yes;
    }
  };

  /**
   * The call policy's `ask`: the policy's author wants a person to confirm each such call, so neither
   * `--yes`, `trust` nor "always" answers it; a yes the person gave this very call just before counts.
   * Without a terminal the call is denied.
   */
  readonly #approvePolicy = async (request: CallApprovalRequest, call: AgentToolCall): Promise<boolean> => {
    if (this.#personApproved.delete(call.id)) return true;
    const label = terminalText(`${request.server} › ${request.tool}`);
    if (!this.#options.ask) {
      this.#options.view.note(
        `(not running ${label}: the call policy asks for your approval and there is no terminal to ask)`,
      );
      return false;
    }
    const why = request.reason ? ` (${terminalText(request.reason)})` : "";
    const args = terminalText(call.arguments || "{}");
    const answer = await this.#answer(
      `The call policy asks${why}: run ${label} ${shorten(args, 60)}? [y]es / [n]o: `,
    );
    return answer === "y" || answer === "yes";
  };

  async #answer(question: string): Promise<string> {
    const { ask, askKey } = this.#options;
    const answer = askKey ? await askKey(question, "ynaf") : await ask?.(question);
    return (answer ?? "").trim().toLowerCase();
  }
}

/** The model's arguments whole, indented JSON when they parse, for the person deciding. */
function fullArguments(raw: string): string {
  let text = raw || "{}";
  try {
    text = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Not JSON: shown as the model sent it.
  }
  return terminalText(text)
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}
