import { randomBytes } from "node:crypto";
import type { ElicitRequestURLParams, ElicitResult } from "@modelcontextprotocol/server";
import type { AuthorizationStep } from "../../../auth/redirect.js";
import {
  callerConsentDeclined,
  callerConsentNotAsked,
  callerConsentTimedOut,
} from "../../../errors/auth-errors.js";

/** Asks the downstream client whose call is waiting (its URL-mode elicitation). */
export type ConsentAsk = (params: ElicitRequestURLParams) => Promise<ElicitResult>;

/**
 * The logins waiting for their callback, by the `state` each authorization request carries: the one
 * callback URL of the gateway serves every caller's login, and `state` (random, single use) is what
 * ties a callback to the caller whose consent started it.
 */
export class ConsentCallbacks {
  readonly #waiting = new Map<string, (query: URLSearchParams | undefined) => void>();

  constructor(private readonly timeoutMs: number) {}

  /** A new state and the callback's query once it arrives (undefined when it did not in time). */
  expect(): { state: string; query: Promise<URLSearchParams | undefined> } {
    const state = randomBytes(32).toString("base64url");
    const query = new Promise<URLSearchParams | undefined>((resolve) => {
      const timer = setTimeout(() => finish(undefined), this.timeoutMs);
      timer.unref();
      const finish = (value: URLSearchParams | undefined) => {
        clearTimeout(timer);
        this.#waiting.delete(state);
        resolve(value);
      };
      this.#waiting.set(state, finish);
    });
    return { state, query };
  }

  /** The authorization server sent the browser back: true when a login was waiting for it. */
  arrived(query: URLSearchParams): boolean {
    const finish = this.#waiting.get(query.get("state") ?? "");
    finish?.(query);
    return finish !== undefined;
  }

  close(): void {
    for (const finish of [...this.#waiting.values()]) finish(undefined);
  }
}

/**
 * The login step of one caller's connection to one server: the authorization URL goes to that caller
 * only, as a URL-mode elicitation within the call that needs it; once the caller accepted, the login
 * finishes when the authorization server sends the browser to the gateway's callback.
 */
export class ConsentStep implements AuthorizationStep {
  /** The calls of this caller waiting on this connection, which may be asked. */
  readonly askers = new Set<ConsentAsk>();
  #pending: { state: string; query: Promise<URLSearchParams | undefined> } | undefined;
  #result: Promise<URLSearchParams | undefined> | undefined;

  constructor(
    private readonly server: string,
    readonly redirectUrl: string,
    private readonly callbacks: ConsentCallbacks,
  ) {}

  state(): string {
    this.#pending = this.callbacks.expect();
    return this.#pending.state;
  }

  async start(authorizationUrl: URL): Promise<void> {
    const pending = this.#pending;
    const [ask] = this.askers;
    if (!pending || !ask) throw callerConsentNotAsked({ server: this.server });
    let answer: ElicitResult;
    try {
      answer = await ask({
        mode: "url",
        message: `Server "${this.server}" needs your own authorization: open this page to sign in and allow access.`,
        url: authorizationUrl.href,
        elicitationId: pending.state,
      });
    } catch {
      throw callerConsentNotAsked({ server: this.server });
    }
    if (answer.action !== "accept") throw callerConsentDeclined({ server: this.server });
    const server = this.server;
    this.#result = pending.query.then((query) => {
      if (!query) throw callerConsentTimedOut({ server });
      return query;
    });
  }

  async result(): Promise<URLSearchParams | undefined> {
    const result = this.#result;
    this.#result = undefined;
    return result;
  }

  async close(): Promise<void> {}
}
