/**
 * What is wrong with one server entry of a config: the text of config/'s EntryProblem, reported as a
 * warning that names the server (the entry is skipped). Texts, not errors: EntryProblem lives in
 * config/, which this layer does not import. `field` is the entry's key as written.
 */
export const entryProblem = {
  /** A value a field's reader refused; `reason` is its "must be ..." fragment (value-errors.ts). */
  valueRejected: (field: string, reason: string) => `"${field}" ${reason}`,
  notString: (field: string) => `"${field}" must be a string`,
  inputPrompt: (field: string, variable: string) =>
    `"${field}" uses \${${variable}}, a VS Code input prompt; run on a terminal to be asked for it, or put the value in an env variable instead`,
  unsetVariable: (field: string, variable: string) =>
    `"${field}" uses \${${variable}}, which is not set; set it or write \${${variable}:-default}`,
  /** `error` says why (SECRET_NOT_FOUND naming `mcp-bridge secrets set NAME`, or the store's failure). */
  secret: (field: string, variable: string, error: Error) =>
    `"${field}" uses \${${variable}}: ${error.message}`,
  notStringTable: (field: string) => `"${field}" must be a table of strings`,
  notStringList: (field: string) => `"${field}" must be a list of strings`,
  notVariableName: () => "must name an environment variable",
  /** `what` (a header, a token) is taken from an unset variable. */
  variableUnset: (what: string, variable: string) => `${what} comes from \${${variable}}, which is not set`,
  notToolList: (field: string) => `"${field}" must be a list of tool names or globs`,
  limitsOnRemote: () => '"limits" applies only to stdio servers (a remote server runs elsewhere); remove it',
  limitsNotTable: () => '"limits" must be a table { memoryMb, pids, cpuSeconds }',
  limitsUnknownKey: (key: string, keys: readonly string[]) =>
    `"limits.${key}" is not a limit (use ${keys.join(", ")})`,
  limitNotCount: (key: string) => `"limits.${key}" must be a whole number greater than 0`,
  limitsCpuPercent: () =>
    '"limits.cpuPercent" is not enforced: a CPU share needs a delegated cgroup, which mcp-bridge does not set up; use "cpuSeconds" (total CPU time, enforced by the kernel) or run the host under systemd-run -p CPUQuota=...',
  limitsPidsUnsandboxed: () =>
    '"limits.pids" needs "sandbox": the kernel counts every process of the user, and only counts the server\'s own inside its sandbox\'s user namespace',
  sandboxOnRemote: () =>
    '"sandbox" applies only to stdio servers (a remote server runs elsewhere); remove it',
  unknownTransport: (value: unknown) => `unknown transport ${JSON.stringify(value)} (use stdio, http or sse)`,
  noCommand: () => 'uses transport "stdio" but has no "command"',
  noUrl: (transport: string) => `uses transport "${transport}" but has no "url"`,
  noCommandNorUrl: () => 'has neither "command" nor "url"',
  emptyCommand: () => '"command" must not be empty',
  noFileAccess: (field: string) => `"${field}" cannot be read here (no file access)`,
  fileUnreadable: (field: string, file: string, reason: string) =>
    `"${field}" names ${file}, which cannot be read (${reason})`,
  notHttpUrl: () => '"url" must be an http:// or https:// URL',
  notHeaderTable: () => '"env_http_headers" must be a table of header = ENV_VAR',
  notToolsTable: () => '"tools" must be a table with "include" and/or "exclude" lists',
  notRestart: () => '"restart" must be true, false or a table',
  notAttempts: () => '"restart.maxAttempts" must be a whole number (0 = unlimited)',
  connectNotFunction: () =>
    '"connect" must be a function that returns an MCP transport; only a program using the library can give one (not a config file): remove it, or use "command" or "url"',
  connectWith: (key: string) =>
    `"${key}" cannot go with "connect" (the server is reached through the transport "connect" returns); remove one of them`,
  notObject: () => "must be an object",
  oauthNotTable: () => '"oauth" must be a table',
  oauthGrant: (grants: readonly string[]) =>
    `"oauth.grant" must be ${grants.map((g) => `"${g}"`).join(", ")}`,
  oauthGrantNeeds: (grant: string, missing: readonly string[]) =>
    `oauth.grant = "${grant}" needs ${missing.map((field) => `oauth.${field}`).join(" and ")}`,
  idpNotTable: () => '"oauth.idp" must be a table',
  idpIncomplete: () => '"oauth.idp" needs idToken, clientId and tokenEndpoint or issuer',
  sandboxNotTable: () => '"sandbox" must be true, false or a table { read, write, network, env }',
  sandboxUnknownKey: (key: string, keys: readonly string[]) =>
    `"sandbox.${key}" is not a sandbox key (use ${keys.join(", ")})`,
  sandboxNotPaths: (key: string) => `"sandbox.${key}" must be a list of paths`,
  sandboxEmptyPath: (key: string, index: number) => `"sandbox.${key}[${index}]" must not be empty`,
  sandboxNetwork: () =>
    '"sandbox.network" must be true, false or a list of host names ("api.github.com", "*.npmjs.org")',
  sandboxHost: (index: number) =>
    `"sandbox.network[${index}]" must be a host name, "*." and a domain, or an IP address (no scheme, port or path)`,
  sandboxEnv: () => '"sandbox.env" must be a list of environment variable names',
};
