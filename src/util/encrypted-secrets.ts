import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from "node:crypto";
import { lstatSync } from "node:fs";
import { dirname } from "node:path";
import { secretFileUnreadable, secretFileUnsafe, secretKeyFileUnsafe } from "../errors/secret-errors.js";
import { withFileLockSync } from "./file-lock.js";
import { readSecretFile, writePrivateFile } from "./private-file.js";
import { ensurePrivateDir } from "./private-path.js";

/**
 * The headless secret store: one file of named secrets, encrypted with AES-256-GCM under a key derived
 * by scrypt from a passphrase (or a key file's contents). The header (format, scrypt parameters, salt)
 * is authenticated with the data, so a changed parameter fails like a changed byte. The file is 0600,
 * never read or written through a link, replaced atomically under its lock (read-modify-write by two
 * processes loses neither). The passphrase is what protects the secrets: the file alone is ciphertext.
 */

/** Where the key comes from: a passphrase (environment variable) or a key file's contents. */
export type SecretKeySource = { readonly passphrase: string } | { readonly keyFile: string };

interface Sealed {
  readonly format: "mcp-bridge-secrets/1";
  readonly kdf: { readonly name: "scrypt"; readonly N: number; readonly r: number; readonly p: number };
  readonly salt: string;
  readonly iv: string;
  readonly tag: string;
  readonly data: string;
}

const FORMAT = "mcp-bridge-secrets/1";
/** scrypt at N=2^15, r=8: 32 MiB and about 0.1 s per derivation, OWASP's floor for interactive use. */
const KDF = { name: "scrypt", N: 2 ** 15, r: 8, p: 1 } as const;

export class EncryptedSecretFile {
  /** Derived keys by salt: a process reads and writes the file under one salt, deriving once. */
  private readonly keys = new Map<string, Buffer>();

  constructor(
    readonly file: string,
    private readonly source: SecretKeySource,
  ) {}

  /** The secrets, by name; empty when the file does not exist yet. */
  read(): Record<string, string> {
    return this.open()?.secrets ?? {};
  }

  /** Changes the secrets under the file's lock; writes a new IV each time, keeps the salt. */
  update(change: (secrets: Record<string, string>) => Record<string, string>): void {
    ensurePrivateDir(dirname(this.file), { what: "secret store folder" });
    withFileLockSync(this.file, () => {
      const opened = this.open();
      const next = change({ ...(opened?.secrets ?? {}) });
      const salt = opened?.salt ?? randomBytes(16);
      // A link planted at the path was refused by open(); the write refuses one planted since (UNSAFE_PATH).
      writePrivateFile(this.file, JSON.stringify(this.seal(next, salt)), "encrypted secret");
    });
  }

  private open(): { secrets: Record<string, string>; salt: Buffer } | undefined {
    if (!exists(this.file)) return undefined;
    const read = readSecretFile(this.file);
    if (!read.ok) throw secretFileUnsafe({ file: this.file, problem: read.problem });
    const sealed = parseSealed(read.text);
    if (!sealed)
      throw secretFileUnreadable({ file: this.file, problem: "it is not an mcp-bridge secret file" });
    const salt = Buffer.from(sealed.salt, "base64");
    let plain: string;
    try {
      // The full 16-byte tag only: GCM would accept a tag cut to 4 bytes, which is far easier to forge.
      const decipher = createDecipheriv(
        "aes-256-gcm",
        this.key(salt, sealed.kdf),
        Buffer.from(sealed.iv, "base64"),
        { authTagLength: 16 },
      );
      decipher.setAAD(header(sealed));
      decipher.setAuthTag(Buffer.from(sealed.tag, "base64"));
      plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, "base64")), decipher.final()]).toString(
        "utf8",
      );
    } catch {
      // GCM cannot tell a wrong key from a changed file: both fail authentication.
      throw secretFileUnreadable({
        file: this.file,
        problem: "the key is wrong or the file was changed (authentication failed)",
      });
    }
    return { secrets: JSON.parse(plain) as Record<string, string>, salt };
  }

  private seal(secrets: Record<string, string>, salt: Buffer): Sealed {
    const iv = randomBytes(12);
    const draft = {
      format: FORMAT,
      kdf: KDF,
      salt: salt.toString("base64"),
      iv: iv.toString("base64"),
    } as const;
    const cipher = createCipheriv("aes-256-gcm", this.key(salt, KDF), iv);
    cipher.setAAD(header(draft));
    const data = Buffer.concat([cipher.update(JSON.stringify(secrets), "utf8"), cipher.final()]);
    return { ...draft, tag: cipher.getAuthTag().toString("base64"), data: data.toString("base64") };
  }

  private key(salt: Buffer, kdf: Sealed["kdf"]): Buffer {
    const id = `${salt.toString("base64")}:${kdf.N}:${kdf.r}:${kdf.p}`;
    let key = this.keys.get(id);
    if (!key) {
      // Bounded parameters: a planted file must not make us allocate gigabytes before failing.
      if (kdf.N > 2 ** 20 || kdf.r > 16 || kdf.p > 4) {
        throw secretFileUnreadable({
          file: this.file,
          problem: "its key derivation parameters are out of range",
        });
      }
      const secret = keyMaterial(this.source);
      key = scryptSync(secret, salt, 32, {
        N: kdf.N,
        r: kdf.r,
        p: kdf.p,
        maxmem: 256 * kdf.N * kdf.r + 1024 ** 2,
      });
      this.keys.set(id, key);
    }
    return key;
  }
}

/** The bytes the key is derived from; a key file must be the user's own, 0600, not a link, not empty. */
function keyMaterial(source: SecretKeySource): string {
  if ("passphrase" in source) return source.passphrase;
  const read = readSecretFile(source.keyFile);
  if (!read.ok) throw secretKeyFileUnsafe({ file: source.keyFile, problem: read.problem });
  const text = read.text.trim();
  if (text.length === 0) throw secretKeyFileUnsafe({ file: source.keyFile, problem: "it is empty" });
  return text;
}

/** The authenticated header: everything but the IV-bound ciphertext and its tag. */
function header(sealed: Pick<Sealed, "format" | "kdf" | "salt" | "iv">): Buffer {
  const { format, kdf, salt, iv } = sealed;
  return Buffer.from(JSON.stringify([format, kdf.name, kdf.N, kdf.r, kdf.p, salt, iv]), "utf8");
}

function parseSealed(text: string): Sealed | undefined {
  try {
    const value = JSON.parse(text) as Partial<Sealed>;
    const kdf = value.kdf;
    const fields = [value.salt, value.iv, value.tag, value.data];
    if (value.format !== FORMAT || kdf?.name !== "scrypt") return undefined;
    if (![kdf.N, kdf.r, kdf.p].every((n) => Number.isSafeInteger(n) && n > 0)) return undefined;
    if (!fields.every((field) => typeof field === "string")) return undefined;
    return value as Sealed;
  } catch {
    return undefined;
  }
}

/** Present in any form (a link, a folder): only a missing path means "no secrets yet". */
function exists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
