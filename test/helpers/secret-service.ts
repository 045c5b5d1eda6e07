import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { until } from "./wait.js";

const require = createRequire(import.meta.url);

/** Why a real Secret Service cannot run here (tests skip saying so), or undefined when it can. */
export const secretServiceMissing: string | undefined = (() => {
  if (process.platform !== "linux") return "the Secret Service tests run on Linux";
  for (const program of ["dbus-daemon", "gnome-keyring-daemon"]) {
    if (spawnSync(program, ["--version"]).error)
      return `${program} is not installed (apt-get install gnome-keyring)`;
  }
  try {
    require("@napi-rs/keyring");
  } catch {
    return "@napi-rs/keyring is not installed";
  }
  return undefined;
})();

/** A describe title that says why it is skipped, when it is. */
export const needsSecretService = (title: string): string =>
  secretServiceMissing === undefined ? title : `${title} (skipped: ${secretServiceMissing})`;

export interface SecretService {
  /** The environment of the private session: DBUS_SESSION_BUS_ADDRESS and the daemon's folders. */
  readonly env: {
    readonly DBUS_SESSION_BUS_ADDRESS: string;
    readonly HOME: string;
    readonly XDG_DATA_HOME: string;
    readonly XDG_RUNTIME_DIR: string;
  };
  stop(): void;
}

/**
 * A private D-Bus session bus with an unlocked GNOME Keyring on it: the user's own session is never
 * touched. The bus has no service folders, so nothing is auto-started: a lookup before the keyring
 * owns its name fails (and is retried) instead of starting a second, locked keyring.
 */
export async function startSecretService(): Promise<SecretService> {
  const dir = mkdtempSync(join(tmpdir(), "mcpb-dbus-"));
  const config = join(dir, "bus.conf");
  writeFileSync(
    config,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:dir=${dir}</listen>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>`,
  );
  const bus = spawn("dbus-daemon", [`--config-file=${config}`, "--nofork", "--print-address=1"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const children: ChildProcess[] = [bus];
  const stop = () => {
    for (const child of children.reverse()) if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const address = await firstLine(bus);
    const env = {
      DBUS_SESSION_BUS_ADDRESS: address,
      HOME: dir,
      XDG_DATA_HOME: join(dir, "data"),
      XDG_RUNTIME_DIR: dir,
    };
    const keyring = spawn("gnome-keyring-daemon", ["--unlock", "--foreground", "--components=secrets"], {
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["pipe", "ignore", "ignore"],
    });
    children.push(keyring);
    // The login keyring's password on stdin, then EOF: the keyring is created unlocked.
    keyring.stdin?.end("test-login-password");
    await until(() => {
      if (keyring.exitCode !== null) throw new Error(`gnome-keyring-daemon exited with ${keyring.exitCode}`);
      return answers(env.DBUS_SESSION_BUS_ADDRESS);
    }, 15_000);
    return { env, stop };
  } catch (error) {
    stop();
    throw error;
  }
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error("dbus-daemon printed no address")), 15_000);
    child.stdout?.on("data", (data: Buffer) => {
      text += data.toString();
      const newline = text.indexOf("\n");
      if (newline >= 0) {
        clearTimeout(timer);
        resolve(text.slice(0, newline).trim());
      }
    });
    child.once("exit", () => reject(new Error("dbus-daemon exited")));
  });
}

/** Whether the keyring on this bus answers a lookup (in a child: the bus address is per process). */
function answers(address: string): boolean {
  const probe = spawnSync(
    process.execPath,
    [
      "-e",
      `const k=require(${JSON.stringify(require.resolve("@napi-rs/keyring"))});new k.Entry("mcp-bridge-probe","ready",{linux:{store:"secret-service"}}).getPassword()`,
    ],
    { env: { PATH: process.env.PATH ?? "", DBUS_SESSION_BUS_ADDRESS: address }, timeout: 5_000 },
  );
  return probe.status === 0;
}

/**
 * For the describe block it is called in: a Secret Service started before its tests and stopped after,
 * with this process's DBUS_SESSION_BUS_ADDRESS pointing at it meanwhile (the binding reads the bus
 * address from the process's environment). `current()` is the running service.
 */
export function secretServiceForThisProcess(): { current(): SecretService } {
  let service: SecretService | undefined;
  let saved: string | undefined;
  beforeAll(async () => {
    service = await startSecretService();
    saved = process.env.DBUS_SESSION_BUS_ADDRESS;
    process.env.DBUS_SESSION_BUS_ADDRESS = service.env.DBUS_SESSION_BUS_ADDRESS;
  }, 30_000);
  afterAll(() => {
    if (saved === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
    else process.env.DBUS_SESSION_BUS_ADDRESS = saved;
    service?.stop();
  });
  return {
    current() {
      if (!service) throw new Error("the Secret Service is not started (used outside its describe block)");
      return service;
    },
  };
}
