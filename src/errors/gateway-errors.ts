import { ConfigError, ErrorCode } from "./index.js";

/**
 * The gateway's own failures (its options, its auth file, its tokens), one factory per situation: the
 * code, the wording and the fields are composed here, so a throw site is one statement with no words.
 * Wire answers to a client (JSON-RPC errors, HTTP bodies) are not errors of ours: see the gateway's
 * wire-errors.ts.
 */

/** `startGateway` asked to listen beyond loopback with no way to tell callers apart. */
export const gatewayNeedsAuth = ({ host }: { host: string }) =>
  new ConfigError(
    ErrorCode.ConfigInvalid,
    `The gateway will not listen on ${host} without auth: configure bearer tokens or OAuth, or bind 127.0.0.1.`,
  );

/** An option of `startGateway` or `serveGatewayStdio` out of its range. */
export const gatewayOptionInvalid = ({
  option,
  value,
  expected,
}: {
  option: string;
  value: unknown;
  expected: string;
}) =>
  new ConfigError(
    ErrorCode.ConfigInvalid,
    `Gateway option ${option} must be ${expected}, got ${JSON.stringify(value) ?? String(value)}.`,
  );

export const authFileUnreadable = ({
  file,
  cause,
  detail,
}: {
  file: string;
  cause: unknown;
  detail: string;
}) =>
  new ConfigError(ErrorCode.ConfigInvalid, `Cannot read the gateway auth file ${file}: ${detail}`, {
    file,
    cause,
  });

/** Deliberately without the parser's message: V8 quotes the file's text around the fault. */
export const authFileNotJson = ({ file }: { file: string }) =>
  new ConfigError(
    ErrorCode.ConfigInvalid,
    `The gateway auth file ${file} is not valid JSON: check its syntax (the parser's own message is not shown: it quotes the file, which may hold tokens).`,
    { file },
  );

export const authFileInvalid = ({ file, detail }: { file: string; detail: string }) =>
  new ConfigError(ErrorCode.ConfigInvalid, `The gateway auth file ${file} is invalid: ${detail}`, { file });

/** A name says who a caller is in logs and metrics: two tokens under one name could not be told apart. */
export const authFileRepeatedName = ({ file, name }: { file: string; name: string }) =>
  new ConfigError(
    ErrorCode.ConfigInvalid,
    `The gateway auth file ${file} names two tokens "${name}": give each token its own client name.`,
    { file },
  );

/** `index` counts from 0; the message counts from 1, as a reader of the file does. */
export const authFileTokenWithoutValue = ({ file, index }: { file: string; index: number }) =>
  new ConfigError(
    ErrorCode.ConfigInvalid,
    `Token ${index + 1} of ${file} has no value: give "token", or "tokenEnv" naming a set environment variable.`,
    { file },
  );

/** `what` names the shared part, e.g. `client name "ci"` or `token (entry 2)`; never the token itself. */
export const duplicateGatewayToken = ({ what }: { what: string }) =>
  new ConfigError(
    ErrorCode.ConfigInvalid,
    `Two gateway tokens have the same ${what}: give each token its own value and client name.`,
  );

/** `serve --cluster-secret-file`: the file that signs what replicas forward to each other is unusable. */
export const clusterSecretUnusable = ({ file, detail }: { file: string; detail: string }) =>
  new ConfigError(
    ErrorCode.ConfigInvalid,
    `Cannot use the cluster secret file ${file}: ${detail}. Give every replica the same private file (chmod 600) of at least 32 bytes.`,
    { file },
  );

/** `--store` names something other than a Redis URL. */
export const storeUrlInvalid = ({ url }: { url: string }) =>
  new ConfigError(
    ErrorCode.ConfigInvalid,
    `The gateway store must be a redis:// or rediss:// URL (e.g. redis://127.0.0.1:6379), got ${JSON.stringify(url.replace(/\/\/[^@/]*@/, "//***@"))}.`,
  );

/** `serve --state-dir`: the folder holding the session records across restarts cannot be used. */
export const stateDirUnusable = ({ dir, detail }: { dir: string; detail: string }) =>
  new ConfigError(
    ErrorCode.ConfigInvalid,
    `Cannot use the gateway state folder ${dir}: ${detail}. Name a folder of your own that others cannot read (it is created 0700 when missing), or remove the file named.`,
    { file: dir },
  );

/** `--state-dir` and `--store` together: the store already keeps the sessions. */
export const stateDirWithStore = () =>
  new ConfigError(
    ErrorCode.ConfigInvalid,
    "The gateway takes a state folder (--state-dir) or a cluster store (--store), not both: with a store the sessions are kept there. Drop one of them.",
  );

/** `--store` without `--cluster-secret-file` (nor `--insecure-store`). */
export const storeNeedsClusterSecret = () =>
  new ConfigError(
    ErrorCode.ConfigInvalid,
    "The cluster store is not used without a cluster secret: whoever else can write the store could plant session records (sending a session's requests, with its client's credential, to their own server) and tool lists a model reads, and no replica could tell them from its own. Give every replica the same --cluster-secret-file (library: clusterSecret), or pass --insecure-store (insecureStore: true) if only the replicas can write to it.",
  );

/** The state keys file (`serve --state-keys`) cannot be used as it is; `problem` says why (never a key). */
export const stateKeysFileRefused = ({ file, problem }: { file: string; problem: string }) =>
  new ConfigError(
    ErrorCode.ConfigInvalid,
    `Refusing the state keys file ${file}: ${problem}. It must be a regular file of this user's, mode 0600 (chmod 600 ${file}).`,
    { file },
  );

/** A line of the state keys file is not `kid:base64key`; `line` counts from 1. The line is never quoted. */
export const stateKeysFileInvalid = ({
  file,
  line,
  detail,
}: {
  file: string;
  line: number;
  detail: string;
}) =>
  new ConfigError(
    ErrorCode.ConfigInvalid,
    `Line ${line} of the state keys file ${file} is invalid: ${detail}. Each line is KID:KEY, KID made of letters, digits, "_" and "-", KEY 32 random bytes in base64 (openssl rand -base64 32).`,
    { file },
  );

export const stateKeysFileEmpty = ({ file }: { file: string }) =>
  new ConfigError(
    ErrorCode.ConfigInvalid,
    `The state keys file ${file} holds no key: add a line KID:KEY (KEY from openssl rand -base64 32).`,
    { file },
  );

// --- why a request forwarded to another replica was cut (the reason of the destroyed request) ---

export const peerConnectTimeout = ({ origin }: { origin: string }) =>
  new Error(`no connection to ${origin} within the connect timeout`);
export const forwardingCancelled = () => new Error("forwarding cancelled");
export const forwardClientGone = () => new Error("the client went away");
