/** The secret store behind `${keyring:NAME}` and `mcp-bridge secrets`: the OS keychain or the encrypted file. */
import { ErrorCode, McpBridgeError } from "./error-classes.js";

/** What to run to store a secret: the same command whatever store is chosen. */
export const setSecretCommand = (name: string): string => `mcp-bridge secrets set ${name}`;

/** `store` names where it was looked up ("the OS credential store", "the encrypted file ..."). */
export function secretNotFound(fields: { name: string; store: string }): McpBridgeError {
  const { name, store } = fields;
  return new McpBridgeError(
    ErrorCode.SecretNotFound,
    `The secret "${name}" is not in ${store}. Store it with \`${setSecretCommand(name)}\` (the value is read from a prompt or stdin).`,
  );
}

/** A name that cannot be a key in every store (and could smuggle a path or a newline into one). */
export function secretNameInvalid(fields: { name: string }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.Usage,
    `"${fields.name}" is not a secret name: use 1 to 128 letters, digits, ".", "_" or "-".`,
  );
}

/**
 * The OS credential store could not be reached or answered with an error (`detail`, the platform's
 * words, which never carry the secret): on a headless machine, the encrypted file store is the way.
 */
export function keyringUnavailable(fields: { detail: string; cause?: unknown }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.SecretStoreFailed,
    `The OS credential store could not be used (${fields.detail}). Unlock it or start it (on Linux, a Secret Service such as GNOME Keyring or KWallet on the session D-Bus); on a machine without one, choose the encrypted file store: MCP_BRIDGE_SECRET_STORE=file with MCP_BRIDGE_SECRET_PASSPHRASE or MCP_BRIDGE_SECRET_KEY_FILE.`,
    { cause: fields.cause },
  );
}

/** MCP_BRIDGE_SECRET_STORE names no store. */
export function secretStoreUnknown(fields: { value: string }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.SecretStoreFailed,
    `MCP_BRIDGE_SECRET_STORE is "${fields.value}": use "keyring" (the OS credential store, the default) or "file" (an encrypted file).`,
  );
}

/** The encrypted file store was chosen without a key. */
export function secretKeyMissing(fields: { file: string }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.SecretStoreFailed,
    `The encrypted secret file ${fields.file} needs a key: set MCP_BRIDGE_SECRET_PASSPHRASE, or MCP_BRIDGE_SECRET_KEY_FILE to a file of yours with mode 0600.`,
  );
}

/** The key file is refused (`problem`: a link, another user's, readable by others, empty). */
export function secretKeyFileUnsafe(fields: { file: string; problem: string }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.SecretStoreFailed,
    `The secret key file ${fields.file} (MCP_BRIDGE_SECRET_KEY_FILE) cannot be used: ${fields.problem}.`,
  );
}

/** The encrypted file is a link, another user's or readable by others: never read or written through. */
export function secretFileUnsafe(fields: { file: string; problem: string }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.SecretStoreFailed,
    `Refusing the encrypted secret file ${fields.file}: ${fields.problem}. Move it away and store the secrets again (\`mcp-bridge secrets set NAME\`).`,
  );
}

/** Decryption failed: the passphrase or key file differs from the one that wrote it, or the file changed. */
export function secretFileUnreadable(fields: { file: string; problem: string }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.SecretStoreFailed,
    `Could not read the encrypted secret file ${fields.file}: ${fields.problem}. Check MCP_BRIDGE_SECRET_PASSPHRASE / MCP_BRIDGE_SECRET_KEY_FILE; a file changed by someone else cannot be trusted (move it away and store the secrets again).`,
  );
}

/** `secrets get` on a terminal: a value printed there stays in the scrollback (and over a shoulder). */
export function secretRevealRefused(fields: { name: string }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.Usage,
    `Not printing the secret "${fields.name}" on a terminal: add --reveal to show it, or pipe the output (mcp-bridge secrets get ${fields.name} | ...).`,
  );
}

/** `secrets set` was given no value (an empty prompt, empty stdin). */
export function secretValueMissing(fields: { name: string }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.Usage,
    `No value for the secret "${fields.name}": type it at the prompt, or pipe it on stdin (printf %s "$VALUE" | mcp-bridge secrets set ${fields.name}); it is never taken from the command line.`,
  );
}

/** stdin carried more than a secret: refused rather than stored cut short. */
export function secretValueTooLarge(fields: { limit: number }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.Usage,
    `The value on stdin is longer than ${fields.limit} bytes; a secret store keeps keys and tokens, not files.`,
  );
}
