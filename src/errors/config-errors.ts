/** Config files and settings: not found, unparsable, invalid, not editable. */
import { ConfigError, ErrorCode } from "./error-classes.js";

/** `origin` "env": the path came from MCP_BRIDGE_CONFIG; otherwise it was given as the config file. */
export function configNotFound(fields: { file: string; origin?: string | undefined }): ConfigError {
  const { file, origin } = fields;
  const what =
    origin === "env"
      ? `MCP_BRIDGE_CONFIG names ${file}, which does not exist.`
      : `The config file ${file} does not exist.`;
  return new ConfigError(
    ErrorCode.ConfigNotFound,
    `${what} Check the path, or run \`mcp-bridge config paths\` to see where configs are looked for.`,
    { file },
  );
}

/** A TOML or JSON syntax error at `line`:`column`; `detail` is the parser's first line. */
export function configSyntax(fields: {
  file: string;
  format: "TOML" | "JSON";
  line: number;
  column: number;
  detail: string;
  cause?: unknown;
}): ConfigError {
  const { file, format, line, column, detail, cause } = fields;
  return new ConfigError(ErrorCode.ConfigParse, `${file}:${line}:${column}: invalid ${format}: ${detail}`, {
    file,
    line,
    column,
    cause,
  });
}

export function configNotObject(fields: { file: string }): ConfigError {
  const { file } = fields;
  return new ConfigError(ErrorCode.ConfigParse, `${file}: the config must be a JSON object`, { file });
}

/** `loadConfig({ settings })` with settings that do not validate; `problems` say which and why. */
export function settingsInvalid(fields: { problems: readonly string[] }): ConfigError {
  return new ConfigError(
    ErrorCode.ConfigInvalid,
    `The settings given in code are invalid: ${fields.problems.join("; ")}. Fix them (the keys and values of a config file's "settings" table are accepted).`,
  );
}

/** An edit of a config file that was refused before anything was written. */
export function notEditable(fields: { file: string; reason: string }): ConfigError {
  const { file, reason } = fields;
  return new ConfigError(
    ErrorCode.ConfigInvalid,
    `Cannot edit ${file}: ${reason}. The file was not changed.`,
    {
      file,
    },
  );
}

/** docs/config.md lost the markers the key lists are written between (a build-time check). */
export const docsMarkersMissing = ({ start, end }: { start: string; end: string }) =>
  new Error(`docs/config.md has no ${start} ... ${end} markers`);
