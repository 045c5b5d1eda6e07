import { createRequire } from "node:module";
import type * as KeyringModule from "@napi-rs/keyring";
import type * as Re2Module from "re2js";
import type * as TomlModule from "smol-toml";
import { optionalModuleMissing } from "../errors/module-errors.js";
import { lazyPeer } from "./lazy-import.js";

/**
 * Packages loaded when first used rather than when the library or the CLI is imported: a TOML config,
 * a regex search or a schema check is rare next to `--version`, `--help` or a host's start. Both ship
 * a CommonJS build, so `require` loads them synchronously and their callers stay synchronous.
 */
const require = createRequire(import.meta.url);

let toml: typeof TomlModule | undefined;
/** smol-toml (its `parse`, `stringify` and `TomlError`). */
export const smolToml = (): typeof TomlModule => {
  toml ??= require("smol-toml") as typeof TomlModule;
  return toml;
};

let re2: typeof Re2Module.RE2JS | undefined;
/** re2js's RE2JS: regular expressions in linear time, whatever the pattern. */
export const re2js = (): typeof Re2Module.RE2JS => {
  re2 ??= (require("re2js") as typeof Re2Module).RE2JS;
  return re2;
};

/**
 * The `redis` client (15 MB installed), for `serve --store redis://…` only: an optional peer
 * dependency, so a gateway started with a store but without the package fails with MODULE_LOAD_FAILED
 * saying what to install.
 */
export const redisClient = lazyPeer(
  "a Redis or Valkey store (serve --store)",
  "redis",
  () => import("redis"),
);

let keyring: typeof KeyringModule | undefined;
/**
 * `@napi-rs/keyring` (the OS credential store: Secret Service, macOS Keychain, Windows Credential
 * Manager), an optional peer dependency with prebuilt binaries. Loaded synchronously, unlike the peers
 * above: `${keyring:NAME}` is expanded inside the synchronous config normalization and the OAuth token
 * store is synchronous, and the binding's `Entry` API is synchronous too. A failed load throws
 * MODULE_LOAD_FAILED saying what to install, and the next call tries again.
 */
export const napiKeyring = (): typeof KeyringModule => {
  if (keyring) return keyring;
  try {
    keyring = require("@napi-rs/keyring") as typeof KeyringModule;
  } catch (cause) {
    throw optionalModuleMissing({
      feature: "the OS credential store (${keyring:NAME}, mcp-bridge secrets)",
      pkg: "@napi-rs/keyring",
      detail: cause instanceof Error ? cause.message : String(cause),
      cause,
    });
  }
  return keyring;
};
