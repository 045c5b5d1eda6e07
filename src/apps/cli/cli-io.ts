/** Everything the CLI touches of the outside world, so tests can run it in-process. */
export interface CliIO {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Aborted on SIGINT/SIGTERM: commands close their bridge and return. */
  readonly signal?: AbortSignal;
  /** Read by interactive commands (`chat`) and to ask for consent, only when it is a terminal. */
  readonly stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
}
