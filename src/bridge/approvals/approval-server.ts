import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { approvalBodyTooLarge } from "../../errors/index.js";
import { argumentText, type ShownQuestion } from "./approval-question.js";

/**
 * The local listener of approvals (127.0.0.1 only): the page a person opens and the webhook's
 * callback. A page lives at `/approve/<token>`, the token 256 random bits and good for one answer;
 * a callback at `/callback/<id>?sig=<hex>`, the signature HMAC-SHA256 of the approval id under the
 * webhook's secret, compared in constant time. Anything else is 404, so the listener tells a
 * stranger nothing about what is pending.
 */

/** What a page or callback resolves: the person's answer and the name they gave. */
export interface ListenerAnswer {
  readonly approved: boolean;
  readonly by: string | undefined;
}

/** A question waiting on the listener. */
export interface Waiting {
  readonly question: ShownQuestion;
  readonly answer: (answer: ListenerAnswer, channel: "page" | "webhook") => void;
}

const MAX_BODY = 16 * 1024;

export function callbackSignature(secret: string, id: string): string {
  return createHmac("sha256", secret).update(id).digest("hex");
}

export class ApprovalListener {
  readonly #pages = new Map<string, Waiting>();
  readonly #callbacks = new Map<string, { secret: string; waiting: Waiting }>();
  #server: Server | undefined;
  #listening: Promise<string> | undefined;

  readonly #port: number;

  constructor(port: number) {
    this.#port = port;
  }

  /** The listener's base URL (`http://127.0.0.1:PORT`), listening from the first call. */
  base(): Promise<string> {
    this.#listening ??= new Promise((resolve, reject) => {
      const server = createServer((req, res) => void this.#serve(req, res));
      this.#server = server;
      server.once("error", reject);
      server.listen(this.#port, "127.0.0.1", () => {
        // A host whose only open handle is this listener still exits.
        server.unref();
        resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      });
    });
    return this.#listening;
  }

  /** Serves `waiting` on its page until `forget`. */
  page(token: string, waiting: Waiting): () => void {
    this.#pages.set(token, waiting);
    return () => this.#pages.delete(token);
  }

  /** Takes the signed callback for `id` until `forget`. */
  callback(id: string, secret: string, waiting: Waiting): () => void {
    this.#callbacks.set(id, { secret, waiting });
    return () => this.#callbacks.delete(id);
  }

  close(): void {
    this.#server?.close();
    this.#server?.closeAllConnections();
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const [, kind, key, extra] = url.pathname.split("/");
    try {
      if (kind === "approve" && key && extra === undefined) return await this.#servePage(req, res, key);
      if (kind === "callback" && key && extra === undefined)
        return await this.#serveCallback(req, res, key, url.searchParams.get("sig") ?? "");
      reply(res, 404, "text/plain", "Not found");
    } catch {
      reply(res, 400, "text/plain", "Bad request");
    }
  }

  async #servePage(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    const waiting = this.#pages.get(token);
    if (!waiting) return reply(res, 404, "text/html", page("This question was answered or has expired."));
    if (req.method === "GET") return reply(res, 200, "text/html", questionPage(waiting.question));
    if (req.method !== "POST") return reply(res, 405, "text/plain", "Method not allowed");
    const form = new URLSearchParams(await bodyOf(req));
    const decision = form.get("decision");
    if (decision !== "allow" && decision !== "deny") return reply(res, 400, "text/plain", "No decision");
    // One answer per page: the token is gone before the answer is acted on.
    this.#pages.delete(token);
    const by = form.get("by")?.trim().slice(0, 100) || undefined;
    waiting.answer({ approved: decision === "allow", by }, "page");
    reply(res, 200, "text/html", page(decision === "allow" ? "Allowed. The call runs." : "Denied."));
  }

  async #serveCallback(req: IncomingMessage, res: ServerResponse, id: string, sig: string): Promise<void> {
    const entry = this.#callbacks.get(id);
    if (!entry) return reply(res, 404, "text/plain", "Not found");
    if (req.method !== "POST") return reply(res, 405, "text/plain", "Method not allowed");
    const wanted = Buffer.from(callbackSignature(entry.secret, id), "hex");
    const given = Buffer.from(/^[0-9a-f]{64}$/i.test(sig) ? sig : "", "hex");
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted))
      return reply(res, 403, "text/plain", "Bad signature");
    const body = JSON.parse(await bodyOf(req)) as { approved?: unknown; by?: unknown };
    if (typeof body.approved !== "boolean")
      return reply(res, 400, "text/plain", "approved must be a boolean");
    this.#callbacks.delete(id);
    const by = typeof body.by === "string" && body.by.trim() ? body.by.trim().slice(0, 100) : undefined;
    entry.waiting.answer({ approved: body.approved, by }, "webhook");
    reply(res, 200, "application/json", JSON.stringify({ recorded: true }));
  }
}

function bodyOf(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(approvalBodyTooLarge(MAX_BODY));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function reply(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, {
    "content-type": `${type}; charset=utf-8`,
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
  });
  res.end(body);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function page(body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>mcp-bridge approval</title></head><body style="font-family:sans-serif;max-width:50em;margin:2em auto"><p>${escapeHtml(body)}</p></body></html>`;
}

function questionPage(question: ShownQuestion): string {
  const reason = question.reason ? `<p>Why approval is needed: ${escapeHtml(question.reason)}</p>` : "";
  return `<!doctype html><html><head><meta charset="utf-8"><title>mcp-bridge approval</title></head>
<body style="font-family:sans-serif;max-width:50em;margin:2em auto">
<h1>Allow tool "${escapeHtml(question.tool)}" of server "${escapeHtml(question.server)}"?</h1>
<p>Asked by: <b>${escapeHtml(question.caller)}</b></p>${reason}
<p>Arguments (secrets masked):</p><pre style="background:#eee;padding:1em;overflow:auto">${escapeHtml(argumentText(question))}</pre>
<form method="post"><label>Your name (recorded in the audit log): <input name="by" maxlength="100"></label>
<p><button name="decision" value="allow">Allow</button> <button name="decision" value="deny">Deny</button></p></form>
</body></html>`;
}
