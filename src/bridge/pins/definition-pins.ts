import type { DriftAction, ServerDefinition } from "../../config/model.js";
import { type ToolChangedError, toolChanged } from "../../errors/index.js";
import type { Logger } from "../../util/logger.js";
import { plainText } from "../../util/plain-text.js";
import { errorText } from "../../util/text-of.js";
import {
  canonicalJson,
  compareDefinitions,
  describeDrift,
  fingerprintOf,
  isDrift,
  type PinDrift,
  type PinKind,
  pinnedDefinition,
} from "./fingerprint.js";
import { type PinEntry, PinFiles, type PinTable, pinsDigest } from "./pin-store.js";

/**
 * Trust on first use for what servers say their tools are. The first listing of a server (per exact
 * definition) is pinned; each later listing is compared, and a drift (a changed, new or removed
 * definition) is reported once per distinct drift and acted on: `warn` keeps every tool, `block`
 * keeps the changed and new ones out (a call to one fails with TOOL_CHANGED) while the unchanged keep
 * working, `ask` blocks and asks the host's person, accepting on yes. Pins change only when accepted.
 */

/** One server's pins as `bridge.pins()` reports them. */
export interface PinReport {
  readonly server: string;
  /** The pin file (per exact server definition). */
  readonly file: string;
  /** When the pins were taken or last accepted (ms since the epoch); undefined: nothing pinned yet. */
  readonly pinnedAt?: number;
  /** How many definitions are pinned, by kind. */
  readonly pinned: Readonly<Partial<Record<PinKind, number>>>;
  /** What the last listing said that the pins did not; undefined when it matched. */
  readonly drift?: PinDrift;
  /** The action in force for this server. */
  readonly onDrift: DriftAction;
  /** Names of the definitions kept out (under `block`, and `ask` until answered). */
  readonly blocked: readonly string[];
}

/** A drift, as the `pinsDrifted` event carries it. */
export interface PinDriftEvent {
  readonly drift: PinDrift;
  /** What was done: `warn` (kept), `block` (kept out), `ask` (kept out until the person answers). */
  readonly action: DriftAction;
  /** The drift as readable lines (server text made plain). */
  readonly lines: readonly string[];
}

export interface DefinitionPinsOptions {
  /** The pins folder; undefined turns pinning off. */
  readonly dir: string | undefined;
  readonly logger: Logger;
  /** Masks secrets in server text before it is shown. */
  readonly redact: (text: string) => string;
  /** The host's default action, under the config's. */
  readonly onDrift: DriftAction;
  /** Asks a person whether to accept a drift; without it, `ask` blocks. */
  readonly confirmDrift: ((event: PinDriftEvent) => Promise<boolean>) | undefined;
  readonly emit: (event: PinDriftEvent) => void;
  readonly now?: () => number;
}

type Listed = Map<string, PinEntry>;

/** A listing's definitions by name, each with its fingerprint and pinned fields. */
function fingerprinted(items: readonly { readonly name: string }[]): Listed {
  const listed: Listed = new Map();
  for (const item of items) {
    const pinned = pinnedDefinition(item as unknown as Record<string, unknown>);
    listed.set(item.name, { fingerprint: fingerprintOf(pinned), definition: pinned });
  }
  return listed;
}

/** Pinned kinds that are listed whole (`ui://` resources are read one at a time). */
type ListedKind = Exclude<PinKind, "uiResource">;

interface ServerPins {
  readonly definition: ServerDefinition;
  /**
   * The latest listing of each kind as the server sent it (fingerprinted again only by `accept`): the
   * items are held by the bridge anyway, a fingerprinted copy would be one more object per definition.
   */
  readonly listed: Partial<Record<ListedKind, readonly { readonly name: string }[]>>;
  /** The `ui://` resources read so far, fingerprinted. */
  uiRead: Listed | undefined;
  drift: PinDrift | undefined;
  /** The drift last reported (canonical JSON), so the same drift is told once. */
  reported: string | undefined;
  readonly blocked: Map<string, ToolChangedError>;
  action: DriftAction;
}

/** What a check of a listing decided. */
export interface PinCheck<T> {
  /** The definitions let through. */
  readonly admitted: readonly T[];
  /** Present when a person is being asked: resolves true once the drift is accepted. */
  readonly question?: Promise<boolean>;
}

export class DefinitionPins {
  readonly #files: PinFiles | undefined;
  readonly #options: DefinitionPinsOptions;
  readonly #servers = new Map<string, ServerPins>();
  /** Questions being asked, one at a time (a terminal reads one answer at a time). */
  #questions: Promise<unknown> = Promise.resolve();
  readonly #pending = new Set<Promise<unknown>>();

  constructor(options: DefinitionPinsOptions) {
    this.#files = options.dir === undefined ? undefined : new PinFiles(options.dir);
    this.#options = options;
  }

  get enabled(): boolean {
    return this.#files !== undefined;
  }

  /** The action for a server: its entry's, else the config's setting, else the host's default. */
  actionOf(definition: ServerDefinition, setting: DriftAction | undefined): DriftAction {
    return definition.onDrift ?? setting ?? this.#options.onDrift;
  }

  /**
   * Checks a server's listing of one kind against its pins (pinning it when there are none) and
   * returns what may be published. Never throws: pins that cannot be read or saved are reported and
   * the listing is let through as if unpinned.
   */
  check<T extends { readonly name: string }>(
    definition: ServerDefinition,
    kind: PinKind,
    items: readonly T[],
    setting: DriftAction | undefined,
  ): PinCheck<T> {
    const files = this.#files;
    // An empty listing (a failed server, a removed one) pins nothing and blocks nothing.
    if (!files || items.length === 0) return { admitted: items };
    const server = this.#serverOf(definition, setting);
    const listed = fingerprinted(items);
    const summary = files.summary(definition);
    if (kind === "uiResource") return this.#checkRead(definition, server, listed, summary?.uiResource, items);
    server.listed[kind] = items;
    const pinned = summary?.kinds[kind];
    if (!pinned) {
      this.#save(definition, { ...this.#read(definition)?.pins, [kind]: Object.fromEntries(listed) });
      return { admitted: items };
    }
    // The usual case, a listing as pinned, is told by one digest; the pinned definitions are read only
    // to describe a drift.
    const found =
      pinned.count === listed.size && pinned.digest === pinsDigest(listed)
        ? { added: [], removed: [], changed: [] }
        : compareDefinitions(kind, new Map(Object.entries(this.#read(definition)?.pins[kind] ?? {})), listed);
    const drift = this.#mergeDrift(server, kind, found);
    for (const name of [...server.blocked.keys()])
      if (name.startsWith(`${kind}\0`)) server.blocked.delete(name);
    if (!isDrift(drift)) return { admitted: items };
    const lines = describeDrift(drift).map((line) => plainText(this.#options.redact(line), 500));
    const keepOut = server.action !== "warn";
    if (keepOut && kind === "tool") {
      for (const change of found.changed) this.#block(server, kind, change.name, "changed");
      for (const add of found.added) this.#block(server, kind, add.name, "added");
    }
    const question = this.#report(server, drift, lines);
    if (!keepOut || kind !== "tool") return { admitted: items, question };
    const out = new Set([...found.changed.map((c) => c.name), ...found.added.map((a) => a.name)]);
    return { admitted: items.filter((item) => !out.has(item.name)), question };
  }

  /**
   * `ui://` resources are read one at a time, not listed: each is pinned when first read, and a read
   * whose content differs from its pin is a change (never "added" or "removed").
   */
  #checkRead<T>(
    definition: ServerDefinition,
    server: ServerPins,
    read: Listed,
    uiPins: Readonly<Record<string, PinEntry>> | undefined,
    items: readonly T[],
  ): PinCheck<T> {
    const pinned = uiPins ?? {};
    server.uiRead = new Map([...(server.uiRead ?? []), ...read]);
    const fresh = [...read].filter(([name]) => !Object.hasOwn(pinned, name));
    if (fresh.length > 0) {
      const pins = this.#read(definition)?.pins;
      this.#save(definition, { ...pins, uiResource: { ...pinned, ...Object.fromEntries(fresh) } });
    }
    const known = new Map([...read].filter(([name]) => Object.hasOwn(pinned, name)));
    const found = compareDefinitions(
      "uiResource",
      new Map([...known.keys()].map((name) => [name, pinned[name] as PinEntry])),
      known,
    );
    const drift = this.#mergeDrift(server, "uiResource", {
      added: [],
      removed: [],
      changed: [
        ...(server.drift?.changed ?? []).filter((c) => c.kind === "uiResource" && !read.has(c.name)),
        ...found.changed,
      ],
    });
    if (found.changed.length === 0) return { admitted: items };
    const lines = describeDrift(drift).map((line) => plainText(this.#options.redact(line), 500));
    return { admitted: items, question: this.#report(server, drift, lines) };
  }

  /** The TOOL_CHANGED error of a tool kept out, by its server and original name. */
  blockedTool(server: string, tool: string): ToolChangedError | undefined {
    return this.#servers.get(server)?.blocked.get(`tool\0${tool}`);
  }

  /** Every tool kept out, by server and original name. */
  blockedTools(): { server: string; tool: string }[] {
    return [...this.#servers.entries()].flatMap(([server, pins]) =>
      [...pins.blocked.keys()]
        .filter((key) => key.startsWith("tool\0"))
        .map((key) => ({ server, tool: key.slice("tool\0".length) })),
    );
  }

  /** Resolves once no question about a drift is open (calls of a tool being asked about wait here). */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  /**
   * Accepts what the server listed last as its pins (every kind listed), ending its drift. Throws
   * UNSAFE_PATH when the pin file cannot be written safely.
   */
  accept(definition: ServerDefinition): void {
    const server = this.#servers.get(definition.name);
    if (!this.#files || !server) return;
    const pins: PinTable = { ...this.#read(definition)?.pins };
    for (const [kind, items] of Object.entries(server.listed) as [ListedKind, { name: string }[]][])
      pins[kind] = Object.fromEntries(fingerprinted(items));
    // UI resources are pinned as they are read: the ones not read this time keep their pins.
    if (server.uiRead) pins.uiResource = { ...pins.uiResource, ...Object.fromEntries(server.uiRead) };
    this.#files.write(definition, pins, (this.#options.now ?? Date.now)());
    server.drift = undefined;
    server.reported = undefined;
    server.blocked.clear();
  }

  /** Each checked server's pins, drift and blocked definitions. */
  reports(definitions: readonly ServerDefinition[], setting: DriftAction | undefined): PinReport[] {
    const files = this.#files;
    if (!files) return [];
    return definitions.map((definition) => {
      const summary = files.summary(definition);
      const server = this.#servers.get(definition.name);
      const pinned: Partial<Record<PinKind, number>> = {};
      for (const [kind, table] of Object.entries(summary?.kinds ?? {}) as [PinKind, { count: number }][])
        pinned[kind] = table.count;
      return {
        server: definition.name,
        file: files.fileOf(definition),
        pinnedAt: summary?.pinnedAt,
        pinned,
        drift: server?.drift,
        onDrift: this.actionOf(definition, setting),
        blocked: [...(server?.blocked.keys() ?? [])].map((key) => key.slice(key.indexOf("\0") + 1)),
      };
    });
  }

  #serverOf(definition: ServerDefinition, setting: DriftAction | undefined): ServerPins {
    let server = this.#servers.get(definition.name);
    // A changed definition (a reload) has pins of its own: start afresh.
    if (!server || server.definition !== definition) {
      server = {
        definition,
        listed: {},
        uiRead: undefined,
        drift: undefined,
        reported: undefined,
        blocked: new Map(),
        action: "warn",
      };
      this.#servers.set(definition.name, server);
    }
    server.action = this.actionOf(definition, setting);
    return server;
  }

  /** The server's drift with this kind's part replaced (kinds are listed at different times). */
  #mergeDrift(
    server: ServerPins,
    kind: PinKind,
    found: Pick<PinDrift, "added" | "removed" | "changed">,
  ): PinDrift {
    const other = <T extends { kind: PinKind }>(list: readonly T[] | undefined) =>
      (list ?? []).filter((item) => item.kind !== kind);
    const drift: PinDrift = {
      server: server.definition.name,
      added: [...other(server.drift?.added), ...found.added],
      removed: [...other(server.drift?.removed), ...found.removed],
      changed: [...other(server.drift?.changed), ...found.changed],
    };
    server.drift = isDrift(drift) ? drift : undefined;
    return drift;
  }

  #block(server: ServerPins, kind: PinKind, name: string, change: "changed" | "added"): void {
    const lines = describeDrift(server.drift as PinDrift, name).map((line) =>
      plainText(this.#options.redact(line), 500),
    );
    server.blocked.set(
      `${kind}\0${name}`,
      toolChanged({ server: server.definition.name, tool: name, change, drift: lines }),
    );
  }

  /** Tells of a drift once (warning and event), and asks about it under `ask` when a person can answer. */
  #report(server: ServerPins, drift: PinDrift, lines: readonly string[]): Promise<boolean> | undefined {
    const key = canonicalJson(drift);
    if (server.reported === key) return undefined;
    server.reported = key;
    const name = server.definition.name;
    const action = server.action;
    const confirm = action === "ask" ? this.#options.confirmDrift : undefined;
    const effect =
      action === "warn"
        ? "used anyway (onDrift: warn)"
        : confirm
          ? "kept out until you answer"
          : "kept out (blocked) until accepted";
    this.#options.logger.warn(
      `Server "${name}": its tool definitions changed since they were pinned; the changed and new ones are ${effect}. ` +
        `Review with \`mcp-bridge pins diff ${name}\`, accept with \`mcp-bridge pins accept ${name}\`.\n${lines.join("\n")}`,
      { server: name, event: "pins.drift" },
    );
    const event: PinDriftEvent = { drift, action, lines };
    this.#options.emit(event);
    if (!confirm) return undefined;
    const question = this.#questions
      .then(() => confirm(event))
      .then(
        (yes) => {
          if (!yes || !server.drift || canonicalJson(server.drift) !== key) return false;
          try {
            this.accept(server.definition);
            return true;
          } catch (error) {
            this.#options.logger.warn(
              `Server "${name}": its accepted tools could not be pinned: ${errorText(error)}`,
              {
                server: name,
              },
            );
            return false;
          }
        },
        (error: unknown) => {
          this.#options.logger.warn(
            `Server "${name}": asking about its changed tools failed: ${errorText(error)}`,
            {
              server: name,
            },
          );
          return false;
        },
      );
    this.#questions = question;
    this.#pending.add(question);
    void question.finally(() => this.#pending.delete(question));
    return question;
  }

  #read(definition: ServerDefinition) {
    return this.#files?.read(definition);
  }

  #save(definition: ServerDefinition, pins: PinTable): void {
    try {
      this.#files?.write(definition, pins, (this.#options.now ?? Date.now)());
    } catch (error) {
      this.#options.logger.warn(
        `Server "${definition.name}": its tool definitions could not be pinned: ${errorText(error)}`,
        { server: definition.name },
      );
    }
  }
}
