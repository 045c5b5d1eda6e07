// The CLI process itself, loaded by bin.ts once Node's compile cache is set up.
import { constants } from "node:os";
import { signalReceived } from "../../errors/cli-errors.js";
import { commandWord } from "./parse-arguments.js";
import { guardTerminal } from "./terminal.js";

// With bin.ts (which only sets up the compile cache), the only place that reads process.argv /
// process.env and calls process.exit.
const controller = new AbortController();
let signals = 0;
// The shell convention for "ended by signal N": 130 after SIGINT, 143 after SIGTERM, 129 after SIGHUP.
let signalExitCode = 130;
const onSignal = (signal: NodeJS.Signals) => {
  signals++;
  // A second Ctrl-C does not wait for a graceful shutdown.
  if (signals > 1) process.exit(signalExitCode);
  signalExitCode = 128 + (constants.signals[signal] ?? 2);
  controller.abort(signalReceived({ signal }));
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);
// Closing the terminal: shut down as for SIGTERM (servers run in their own sessions and never see it).
process.on("SIGHUP", onSignal);

const argv = process.argv.slice(2);
const HELP_OR_VERSION = new Set(["--help", "-h", "--version", "-V"]);
let stderr: NodeJS.WriteStream | undefined;
const io = {
  stdin: process.stdin,
  // On a terminal, nothing but the CLI's own colors and line editing gets through (see terminal.ts).
  stdout: guardTerminal(process.stdout),
  get stderr() {
    stderr ??= guardTerminal(process.stderr);
    return stderr;
  },
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
};
// `attach` relays to the daemon with nothing of the bridge loaded; a running daemon answers the bridge
// commands; only without one is the full CLI (bridge, SDK) loaded. Help and `--version` are never the
// daemon's (runViaDaemon would decline them after loading itself), so they skip it.
const word = commandWord(argv);
const helpOrVersion = word === undefined || word === "help" || argv.some((arg) => HELP_OR_VERSION.has(arg));
const fast =
  word === "attach"
    ? await (await import("./attach-entry.js")).runAttach(argv, {
        ...io,
        stdout: process.stdout,
        stdin: process.stdin,
      })
    : helpOrVersion
      ? undefined
      : await (await import("./daemon-route.js")).runViaDaemon(argv, io);
const code = fast ?? (await (await import("./run-cli.js")).runCli(argv, io));
process.exitCode = controller.signal.aborted ? signalExitCode : code;
// Let stdout drain, then leave even if a misbehaving server keeps a handle open.
setTimeout(() => process.exit(process.exitCode), 100).unref();
