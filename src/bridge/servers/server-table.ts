import type { ServerConnection } from "../../connection/connection.js";
import type { ServerStatus } from "../../connection/server-status.js";
import type { ToolDefinition } from "../../registry/tool-definition.js";
import { firstFound } from "../../util/wait.js";
import { type ServerRecord, stillConnecting } from "./server-record.js";

/**
 * The bridge's servers: the current record of each name, and the records a reload replaced or removed
 * until they have closed (so `closeAll()` ends those processes too).
 */
export class ServerTable {
  readonly #records = new Map<string, ServerRecord>();
  readonly #retiring = new Set<ServerRecord>();

  get(name: string): ServerRecord | undefined {
    return this.#records.get(name);
  }

  has(name: string): boolean {
    return this.#records.has(name);
  }

  isCurrent(record: ServerRecord): boolean {
    return this.#records.get(record.name) === record;
  }

  records(): ServerRecord[] {
    return [...this.#records.values()];
  }

  statuses(): ServerStatus[] {
    return this.records().map((record) => record.status());
  }

  /** The current servers' connections (a server whose setup failed has none). */
  connections(): Map<string, ServerConnection> {
    const connections = new Map<string, ServerConnection>();
    for (const [name, record] of this.#records)
      if (record.connection) connections.set(name, record.connection);
    return connections;
  }

  /**
   * Makes the record its server's current one. A record it replaces is retired (it closes once its
   * calls in flight have ended), or with `now` closed at once (its calls in flight fail). Resolves
   * once the replaced record is closed (its process tree gone).
   */
  set(record: ServerRecord, options: { now?: boolean } = {}): Promise<void> {
    const previous = this.#records.get(record.name);
    this.#records.set(record.name, record);
    return previous && previous !== record ? this.#retire(previous, options.now === true) : Promise.resolve();
  }

  /** Removes and retires the server's record; returns whether there was one. */
  delete(name: string): boolean {
    const record = this.#records.get(name);
    this.#records.delete(name);
    if (record) void this.#retire(record);
    return record !== undefined;
  }

  /** Closes every record, current or retiring; resolves once their processes are gone. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#records.values(), ...this.#retiring].map((record) => record.close()));
  }

  /** Waits until no current server is still connecting (each bounded by its startup timeout). */
  async ready(): Promise<void> {
    await Promise.all(
      this.records().map(async (record) => {
        const state = record.status().state;
        // A start attempt is awaited to its end (bounded by its own startup timeout), not by a deadline
        // of this wait's: one that timed out is `failed` with its reason once this resolves, where a
        // wait of its own ended first and left it `connecting` while its process was being stopped.
        if (state === "connecting") await record.connect().catch(() => {});
        else if (state === "reconnecting") await record.ensureConnected({}).catch(() => {});
      }),
    );
  }

  /** `server/tool` with original names, for servers whose tools are not listed yet (lazy, idle, failed). */
  splitServerTool(name: string): { server: string; tool: string } | undefined {
    for (let index = name.indexOf("/"); index !== -1; index = name.indexOf("/", index + 1)) {
      if (index === 0) continue;
      const server = name.slice(0, index);
      if (this.#records.has(server)) return { server, tool: name.slice(index + 1) };
    }
    return undefined;
  }

  /**
   * Waits, up to the call's timeout, until `resolve()` finds the tool: `server/tool` of a server whose
   * tools are not listed connects that server, and so does the exposed name of a tool its server
   * listed before it went down (`formerServer`: whatever name a caller uses, a known tool's server is
   * retried at once, not at its next background retry); any other name waits for the servers still
   * connecting (the first that brings the tool ends the wait; the others keep connecting on their own).
   */
  async awaitTool(
    name: string,
    options: { readonly signal?: AbortSignal; readonly timeoutMs: number | undefined },
    resolve: () => ToolDefinition | undefined,
    formerServer?: string,
  ): Promise<void> {
    const wait = (record: ServerRecord) =>
      record
        .ensureConnected({
          signal: options.signal,
          timeoutMs: options.timeoutMs ?? record.definition.callTimeoutMs,
        })
        .then(resolve);
    const target = this.splitServerTool(name);
    const server = target?.server ?? formerServer;
    const record = server === undefined ? undefined : this.#records.get(server);
    if (record) await wait(record);
    else
      await firstFound(
        this.records()
          .filter((r) => stillConnecting(r.status()))
          .map(wait),
      );
  }

  #retire(record: ServerRecord, now = false): Promise<void> {
    this.#retiring.add(record);
    return (now ? record.close() : record.retire()).finally(() => this.#retiring.delete(record));
  }
}
