/**
 * Launch headless Chromium for a session: its profile lives in the session directory
 * (so the session dir is in every browser process's command line or environment), it
 * stays in the harness's process group (toolhost's session group), and its DevTools
 * endpoint is read from its stderr (bounded).
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import process from "node:process";

/** A running browser. */
export interface Browser {
  /** The browser's main process. */
  child: ChildProcess;
  /** Its DevTools WebSocket URL. */
  wsUrl: string;
}

/** Options of {@linkcode launchChromium}. */
export interface LaunchOptions {
  /** The session directory; the profile is `<sessionDir>/chromium-profile`. */
  sessionDir: string;
  /** Executable. Default `$TOOLHOST_CHROMIUM` or `chromium`. */
  executable?: string;
  /** Viewport width × height in CSS pixels. Default 800 × 600. */
  width?: number;
  /** Viewport height. Default 600. */
  height?: number;
}

const MAX_STDERR = 64 * 1024;
/** Length of `/org.chromium.Chromium.XXXXXX/SingletonSocket`. */
const SINGLETON_SUFFIX = 46;

/**
 * The argv of a session's Chromium. `--no-sandbox` only when running as root (Chromium
 * refuses its own sandbox there); no `--no-zygote`/`--single-process`: the zygote and
 * renderers keep the harness's process group, so toolhost's group kill reaches them.
 *
 * @example
 * ```ts
 * import { chromiumArgs } from "./chromium.ts";
 * chromiumArgs({ sessionDir: "/tmp/s" }).includes("--headless=new"); // true
 * ```
 */
export function chromiumArgs(o: LaunchOptions): string[] {
  const args = [
    "--headless=new",
    "--remote-debugging-port=0",
    "--remote-debugging-address=127.0.0.1",
    `--user-data-dir=${join(o.sessionDir, "chromium-profile")}`,
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-breakpad",
    "--disable-crash-reporter",
    "--mute-audio",
    "--hide-scrollbars",
    `--window-size=${o.width ?? 800},${o.height ?? 600}`,
  ];
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  return [...args, "about:blank"];
}

/**
 * The TMPDIR for Chromium: its profile singleton socket (`<TMPDIR>/org.chromium.Chromium.XXXXXX/
 * SingletonSocket`) must fit a Unix socket path (108 bytes), and the session's own tmp
 * dir is often too deep. The session dir when short enough, else `/tmp`.
 *
 * @example
 * ```ts
 * import { socketTmpDir } from "./chromium.ts";
 * socketTmpDir("/tmp/s"); // "/tmp/s"
 * ```
 */
export function socketTmpDir(sessionDir: string): string {
  return Buffer.byteLength(sessionDir) + SINGLETON_SUFFIX <= 107 ? sessionDir : "/tmp";
}

/**
 * Start Chromium and wait for its DevTools line; rejects if it exits first.
 *
 * @example
 * ```ts ignore
 * const b = await launchChromium({ sessionDir: "/tmp/s" });
 * console.log(b.wsUrl);
 * ```
 */
export function launchChromium(o: LaunchOptions): Promise<Browser> {
  const exe = o.executable ?? process.env.TOOLHOST_CHROMIUM ?? "chromium";
  const env = { ...process.env, TMPDIR: socketTmpDir(o.sessionDir) };
  const child = spawn(exe, chromiumArgs(o), { stdio: ["ignore", "ignore", "pipe"], env });
  return new Promise((resolve, reject) => {
    let buf = "";
    let done = false;
    child.once("error", () => {
      done = true;
      reject(new Error(`could not start ${exe}: is Chromium installed?`));
    });
    child.once("exit", () => {
      // The author's diagnostics: stderr is theirs (toolhost never forwards it).
      if (!done) console.error(buf.slice(-4096));
      if (!done) reject(new Error("Chromium exited while starting"));
      done = true;
    });
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      if (done) return; // keep draining, never keep
      buf = (buf + chunk).slice(-MAX_STDERR);
      const m = buf.match(
        /DevTools listening on (ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\/[\w-]+)/,
      );
      if (m) {
        done = true;
        buf = "";
        resolve({ child, wsUrl: m[1] });
      }
    });
  });
}
