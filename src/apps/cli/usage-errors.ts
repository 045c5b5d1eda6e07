import { ErrorCode, McpBridgeError } from "../../errors/error-classes.js";

/**
 * Every usage error of the CLI, one factory per situation: the wording lives here, the throw sites
 * name the situation and its facts (`throw missingArgument({ where, usage, hint })`). Each is a
 * complete McpBridgeError with code USAGE, which the CLI reports with exit code 2.
 */

const usage = (message: string) => new McpBridgeError(ErrorCode.Usage, message);

/** A user's word in a message: quoted, and cut at 80 characters. */
export const quoted = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);

const didYouMean = (near: string | undefined, quote = true) =>
  near ? ` Did you mean ${quote ? `"${near}"` : near}?` : "";

// --- the command line's shape (parse-arguments.ts, run-cli.ts) ---

export const unknownCommand = ({ name, near }: { name: string; near?: string }) =>
  usage(
    `Unknown command ${JSON.stringify(name)}.${didYouMean(near)} Run \`mcp-bridge --help\` for the commands.`,
  );

/** A command line of another tool's (`get NAME`, `daemon restart`): what to run here instead. */
export const habitRedirect = ({ given, instead }: { given: string; instead: string }) =>
  usage(`mcp-bridge has no ${given}: ${instead}`);

export const unknownOption = (o: { option: string; where: string; near?: string; hint: string }) =>
  usage(`Unknown option ${quoted(o.option)} for ${o.where}.${didYouMean(o.near, false)} ${o.hint}`);

export const flagTakesNoValue = ({ flag, value, hint }: { flag: string; value: string; hint: string }) =>
  usage(`Option --${flag} takes no value (got ${quoted(value)}). ${hint}`);

export const flagNeedsValue = (o: { flag: string; placeholder: string; hint: string }) =>
  usage(`Option --${o.flag} needs a value: --${o.flag} ${o.placeholder}. ${o.hint}`);

export const flagGivenTwice = ({ flag, hint }: { flag: string; hint: string }) =>
  usage(`Option --${flag} was given twice. ${hint}`);

export const unknownSubcommand = (o: {
  given: string;
  where: string;
  choices: readonly string[];
  near?: string;
}) =>
  usage(
    `Unknown subcommand ${quoted(o.given)} for ${o.where}; use ${o.choices.join(", ")}.${didYouMean(o.near)}`,
  );

export const missingArgument = ({
  where,
  usage: line,
  hint,
}: {
  where: string;
  usage: string;
  hint: string;
}) => usage(`${where} needs ${line}${line.endsWith(".") ? "" : "."} ${hint}`);

export const unexpectedArguments = (o: { where: string; usage: string; extra: string; hint: string }) =>
  usage(`${o.where} takes ${o.usage}; unexpected ${o.extra}. ${o.hint}`);

export const noArgumentsTaken = ({ where, extra, hint }: { where: string; extra: string; hint: string }) =>
  usage(`${where} takes no arguments, got ${extra}. ${hint}`);

/** A subcommand or argument missing, shown with the command's usage line (`call TOOL [key=value ...]`). */
export const commandUsage = (line: string) => usage(`Usage: mcp-bridge ${line}`);

// --- typed flag values (one message per kind of flag) ---

/** What a flag of each kind accepts, as said after `--NAME must be`. */
export type FlagValueKind =
  | { readonly kind: "duration" }
  | { readonly kind: "int"; readonly min: number }
  | { readonly kind: "address" }
  | { readonly kind: "choice"; readonly choices: readonly string[] };

function accepted(kind: FlagValueKind): string {
  switch (kind.kind) {
    case "duration":
      return 'a duration such as "500ms", "30s", "2m" or "1h" (a bare number is seconds)';
    case "int":
      return `a whole number (${kind.min} or more)`;
    case "address":
      return "[HOST:]PORT (like 8080 or 0.0.0.0:8080)";
    case "choice":
      return `one of ${kind.choices.join(", ")}`;
  }
}

export const badFlagValue = ({ flag, value, ...kind }: { flag: string; value: string } & FlagValueKind) =>
  usage(`--${flag} must be ${accepted(kind)}, got ${quoted(value)}`);

export const conflictingFlags = ({ flags }: { flags: readonly [string, string] }) =>
  usage(`Give --${flags[0]} or --${flags[1]}, not both`);

export const exactlyOneFlag = ({ flags }: { flags: readonly string[] }) =>
  usage(`Give exactly one of ${flags.join(" and ")}`);

export const argsNotJsonObject = ({ value }: { value: string }) =>
  usage(`--args must be a JSON object, got: ${value}`);

// --- ad-hoc servers (--stdio "CMD ARGS", --http URL, --name) and call expressions ---

export const unbalancedQuote = ({ quote, text }: { quote: "'" | '"'; text: string }) =>
  usage(`Unbalanced ${quote} in ${JSON.stringify(text)}`);

export const trailingBackslash = ({ text }: { text: string }) =>
  usage(`Trailing backslash in ${JSON.stringify(text)}`);

export const adHocUrlInvalid = ({ url }: { url: string }) =>
  usage(`--http needs a URL such as http://127.0.0.1:3000/mcp (got ${JSON.stringify(url)})`);

export const adHocCommandMissing = () =>
  usage('--stdio needs a command, e.g. --stdio "npx -y @modelcontextprotocol/server-memory"');

export const adHocNamesMismatch = ({ names, servers }: { names: number; servers: number }) =>
  usage(`--name was given ${names} times for ${servers} ad-hoc server(s)`);

export const adHocNameTwice = ({ name }: { name: string }) => usage(`--name "${name}" was given twice`);

export const unbalancedCallExpression = ({ text }: { text: string }) =>
  usage(`Unbalanced quotes or brackets in (${text})`);

export const badCallArgument = ({ tool, item }: { tool: string; item: string }) =>
  usage(
    `Expected name: value inside ${tool}(...), got ${JSON.stringify(item.slice(0, 60))}; e.g. ${tool}(a: 1, b: "x")`,
  );

// --- `mcp-bridge add` ---

export const addUrlInvalid = ({ url }: { url: string }) =>
  usage(`add needs an http:// or https:// URL such as https://example.com/mcp (got ${JSON.stringify(url)})`);

export const addEnvInvalid = ({ given }: { given: string }) =>
  usage(`--env takes KEY=VALUE with a variable name as KEY (got ${JSON.stringify(given)})`);

export const addHeaderInvalid = ({ given }: { given: string }) =>
  usage(
    `--header takes 'Name: value' or Name=value (got a header without a valid name: ${JSON.stringify(given)})`,
  );

export const addTransportUnknown = ({ value }: { value: string }) =>
  usage(`--transport takes stdio, http or sse (got ${JSON.stringify(value)})`);

/** A flag of one kind of server given for the other kind. */
export const addFlagForOtherTransport = ({ flag }: { flag: "env" | "cwd" | "url" | "header" }) =>
  usage(
    {
      env: "--env is for a stdio server; a remote server takes --header 'Name: value'",
      cwd: "--cwd is for a stdio server, not a remote one",
      url: '--url is for a remote server; a stdio server takes a command after "--"',
      header: "--header is for a remote server (--transport http NAME URL); a stdio server takes --env",
    }[flag],
  );

export const addRemoteAfterTerminator = ({ kind }: { kind: string }) =>
  usage(`A ${kind} server takes a URL, not a command after "--": add --transport ${kind} NAME URL`);

export const addUrlTwice = ({ positional }: { positional: string }) =>
  usage(`Give the URL once: either --url URL or after NAME (got --url and ${JSON.stringify(positional)})`);

export const addExtraUrl = ({ kind, extra }: { kind: string; extra: string }) =>
  usage(`add --transport ${kind} NAME URL takes one URL; unexpected ${JSON.stringify(extra)}`);

export const addUrlMissing = ({ kind }: { kind: string }) =>
  usage(`add --transport ${kind} needs a URL: add --transport ${kind} NAME URL`);

export const addCommandMissing = () =>
  usage("add needs a command or a URL: add NAME -- CMD ARGS, or add --transport http NAME URL");

export const addUrlAsCommand = ({ program }: { program: string }) =>
  usage(
    `${JSON.stringify(program)} is a URL, not a command: add --transport http NAME URL (or sse for a legacy HTTP+SSE server)`,
  );

export const addNameInvalid = () =>
  usage("add needs a server NAME of letters, digits, '.', '_' or '-' (at most 64)");

export const addWordsBeforeTerminator = ({ word }: { word: string }) =>
  usage(
    `add takes NAME before "--" and the command after it; unexpected ${JSON.stringify(word)} before "--"`,
  );

export const addCodexMixedHeader = ({ file, header }: { file: string; header: string }) =>
  usage(
    `${file} is in Codex's form, which takes a header from the environment only whole ('${header}: \${VAR}', or 'Authorization: Bearer \${VAR}'); header "${header}" mixes text with a variable.`,
  );

export const addServerExists = ({ name, file }: { name: string; file: string }) =>
  usage(`Server "${name}" is already in ${file}; pass --force to replace it, or choose another name.`);

// --- other commands ---

export const noRemoteServer = ({ name }: { name: string }) =>
  usage(`No remote (HTTP or SSE) server named "${name}" in the config`);

export const chatNeedsInput = () => usage("chat needs a standard input (or use -p QUESTION)");

export const cannotListen = ({ address, reason }: { address: string; reason?: string }) =>
  usage(
    reason === undefined
      ? `Cannot listen on ${address}: the port is in use. Stop what uses it or pick another port with --http [HOST:]PORT (0 picks a free one).`
      : `Cannot listen on ${address} (${reason}). Pick another address with --http [HOST:]PORT.`,
  );

// --- serve's admin face (serve-command.ts) ---

export const adminTokenEnvUnset = ({ name }: { name: string }) =>
  usage(`--admin-token-env names ${name}, which is not set or empty. Export the admin token in ${name}.`);

export const adminTokenIsClientToken = () =>
  usage(
    "The admin token must differ from every client token: a client holding it would control every server. Choose another admin token.",
  );

export const toolNamesWithoutTool = ({ format }: { format: string }) =>
  usage(`--tool-names wants a format containing "{tool}" (like "{server}_{tool}"), got ${quoted(format)}.`);

/** A `serve` flag that only the HTTP gateway reads, given with --stdio (where it would do nothing). */
export const httpOnlyServeFlag = ({ flag }: { flag: string }) =>
  usage(
    `--${flag} applies to serve --http only; with --stdio it would have no effect. Drop --${flag}, or serve over HTTP: serve --http [HOST:]PORT --${flag} ….`,
  );

/** `sandbox learn --call` not of the form TOOL='{"json":"object"}'. */
export const badLearnCall = ({ value, reason }: { value: string; reason: string }) =>
  usage(
    `--call must be TOOL or TOOL='{"json":"object"}' (the tool's name and its arguments as a JSON object), got ${quoted(value)}: ${reason}.`,
  );
