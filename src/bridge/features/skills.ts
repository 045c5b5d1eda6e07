import type { Client, RequestOptions as SdkRequestOptions } from "@modelcontextprotocol/client";
import {
  SkillVerificationError as SdkSkillVerificationError,
  SKILL_LIMITS,
  type Skill,
  SkillsClient,
} from "@modelcontextprotocol/client/ext/skills";
import type { ServerConnection } from "../../connection/connection.js";
import {
  type SkillVerificationError,
  skillAmbiguous,
  skillBeyondLimits,
  skillNotFound,
  skillVerification,
} from "../../errors/index.js";
import { definedOnly } from "../../util/defined.js";
import { textOf } from "../../util/text-of.js";
import {
  type FeatureContext,
  type RequestOptions,
  requireConnection,
  sessionRequestOptions,
} from "./feature-context.js";
import { ServerListing } from "./listing.js";
import type { SessionClients } from "./session-clients.js";

/**
 * One skill a server offers through the skills extension (`io.modelcontextprotocol/skills`): the
 * entry as `skills/list` gives it. Listing reads no skill file; `loadSkill` does, and verifies each.
 */
export interface SkillEntry {
  readonly server: string;
  /** The frontmatter `name`. */
  readonly name: string;
  readonly description: string;
  /** URI of the skill's SKILL.md. */
  readonly uri: string;
  /** The SKILL.md frontmatter as the server lists it. */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /** Every file of the skill (SKILL.md included) with its byte size and sha256 digest, or "dynamic". */
  readonly files: readonly SkillFileEntry[] | "dynamic";
}

export interface SkillFileEntry {
  readonly uri: string;
  readonly size: number;
  /** `sha256:<hex>` of the file's bytes. */
  readonly digest: string;
}

/** A file of a loaded skill, checked against its listed size and digest. */
export interface SkillFile {
  readonly uri: string;
  readonly mimeType?: string;
  /** The file's text, when the server sent text. */
  readonly text?: string;
  readonly bytes: Uint8Array;
  /** Size and digest were checked (false only for "dynamic" skills, which list no files). */
  readonly verified: boolean;
}

/** A skill whose SKILL.md (and every other listed file) matched the server's listing. */
export interface LoadedSkill {
  readonly server: string;
  readonly name: string;
  readonly uri: string;
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /** SKILL.md's markdown after the frontmatter: the instructions for the model. */
  readonly instructions: string;
  /** SKILL.md's whole text. */
  readonly text: string;
  /** The other files the skill lists, in listing order (none for "dynamic" skills). */
  readonly files: readonly SkillFile[];
}

export interface LoadSkillOptions extends RequestOptions {
  /** Read the skill's other listed files too (default true); false reads SKILL.md only. */
  readonly files?: boolean;
}

/**
 * The skills extension over every server's session. Skills are listed fresh on each call (a
 * listing is small; `ttlMs` caching belongs to the SDK's response cache), and a skill's files are
 * read only when it is loaded: never on connect or listing.
 */
export class SkillCatalog {
  readonly #context: FeatureContext;
  readonly #sessions: SessionClients;
  readonly #listing: ServerListing<SkillEntry>;
  /** One SkillsClient per SDK client (each session has its own negotiated capabilities). */
  readonly #clients = new WeakMap<Client, SkillsClient>();

  constructor(context: FeatureContext, sessions: SessionClients) {
    this.#context = context;
    this.#sessions = sessions;
    this.#listing = new ServerListing(context, sessions, {
      method: "skills/list",
      warnAs: "skills",
      fresh: true,
      load: (connection, client, options) => this.#listOf(connection, client, options),
    });
  }

  /** Skills of every connected server that declares the extension, or of one server (connecting it). */
  list(options: RequestOptions = {}): Promise<SkillEntry[]> {
    return this.#listing.list(options);
  }

  /**
   * Reads a skill's SKILL.md, then its other listed files, verifying each against the listing the
   * server just gave (byte size, sha256 digest, and SKILL.md's frontmatter field by field). The first
   * mismatch throws SkillVerificationError and nothing more is read.
   */
  async load(name: string, options: LoadSkillOptions = {}): Promise<LoadedSkill> {
    const listed = await this.list(options);
    const candidates = listed.filter((entry) => entry.name === name || entry.uri === name);
    const servers = [...new Set(candidates.map((entry) => entry.server))];
    if (servers.length > 1) {
      throw skillAmbiguous({ name, servers });
    }
    const entry = candidates[0];
    if (!entry) {
      const names = listed.map((skill) =>
        options.server === undefined ? `${skill.server}/${skill.name}` : skill.name,
      );
      throw skillNotFound({ name, server: options.server, listed: names });
    }
    const connection = requireConnection(this.#context, entry.server);
    assertWithinLimits(entry);
    const skill = toSdkSkill(entry);
    const read = (ref: string | undefined) =>
      this.#sessions.request(
        connection,
        { method: "resources/read", item: ref ?? entry.uri },
        sessionRequestOptions(connection, options),
        async (client, requestOptions) => {
          try {
            return await this.#skillsClient(client).read(skill, ref, requestOptions);
          } catch (error) {
            throw verificationError(error, entry) ?? error;
          }
        },
      );
    const manifest = await read(undefined);
    const files: SkillFile[] = [];
    if (options.files !== false && entry.files !== "dynamic") {
      // One file at a time: a mismatch stops the reading, and a skill of many files does not open
      // that many requests at once.
      for (const file of entry.files) {
        if (sameUri(file.uri, entry.uri)) continue;
        files.push(fileOf(await read(file.uri)));
      }
    }
    return {
      server: entry.server,
      name: entry.name,
      uri: entry.uri,
      frontmatter: manifest.frontmatter ?? entry.frontmatter,
      instructions: manifest.body ?? "",
      text: manifest.text ?? "",
      files,
    };
  }

  async #listOf(
    connection: ServerConnection,
    client: Client,
    options: SdkRequestOptions,
  ): Promise<SkillEntry[]> {
    const skills = this.#skillsClient(client);
    // Checked first: the SDK logs to the console when asked to list skills a server does not offer.
    if (!skills.supported) return [];
    const listing = await skills.list({}, options);
    for (const invalid of listing.invalid) {
      this.#context.logger.warn(
        `Server "${connection.name}" listed an invalid skill entry; it is skipped`,
        definedOnly({
          server: connection.name,
          uri: invalid.uri === undefined ? undefined : textOf(invalid.uri),
          reason: textOf(invalid.reason),
        }),
      );
    }
    return listing.skills.map((skill) => toEntry(connection.name, skill));
  }

  #skillsClient(client: Client): SkillsClient {
    let skills = this.#clients.get(client);
    if (!skills) {
      // Invalid entries are reported (logged) and skipped instead of failing the whole listing.
      skills = new SkillsClient(client, { skipInvalid: true });
      this.#clients.set(client, skills);
    }
    return skills;
  }
}

function toEntry(server: string, skill: Skill): SkillEntry {
  return {
    server,
    name: skill.frontmatter.name,
    description: skill.frontmatter.description,
    uri: skill.uri,
    frontmatter: skill.frontmatter,
    files:
      skill.resources === "dynamic"
        ? "dynamic"
        : skill.resources.map((file) => ({ uri: file.uri, size: file.size, digest: file.digest })),
  };
}

function toSdkSkill(entry: SkillEntry): Skill {
  return {
    uri: entry.uri,
    frontmatter: entry.frontmatter as Skill["frontmatter"],
    resources: entry.files === "dynamic" ? "dynamic" : entry.files.map((file) => ({ ...file })),
  };
}

function fileOf(file: {
  uri: string;
  mimeType?: string;
  text?: string;
  bytes: Uint8Array;
  verified: boolean;
}): SkillFile {
  return definedOnly({
    uri: file.uri,
    mimeType: file.mimeType,
    text: file.text,
    bytes: file.bytes,
    verified: file.verified,
  }) as SkillFile;
}

function sameUri(a: string, b: string): boolean {
  return a === b || safeDecode(a) === safeDecode(b);
}

function safeDecode(uri: string): string {
  try {
    return decodeURI(uri);
  } catch {
    return uri;
  }
}

/** The SDK's verification failure as ours, naming server and skill; undefined for other errors. */
function verificationError(error: unknown, entry: SkillEntry): SkillVerificationError | undefined {
  if (!(error instanceof SdkSkillVerificationError)) return undefined;
  return skillVerification({
    server: entry.server,
    skill: entry.name,
    uri: error.uri,
    reason: error.reason,
    detail: error.message,
    differences: error.differences,
    cause: error,
  });
}

/**
 * The extension's publication limits per skill (files and total bytes), checked on the listing
 * before any read: a server cannot make the bridge buffer more than that for one skill.
 */
function assertWithinLimits(entry: SkillEntry): void {
  if (entry.files === "dynamic") return;
  const bytes = entry.files.reduce((sum, file) => sum + file.size, 0);
  if (entry.files.length <= SKILL_LIMITS.files && bytes <= SKILL_LIMITS.bytes) return;
  throw skillBeyondLimits({
    server: entry.server,
    skill: entry.name,
    uri: entry.uri,
    files: entry.files.length,
    bytes,
    limits: SKILL_LIMITS,
  });
}
