/**
 * Launch headless Chromium for a session: its profile lives in the session directory
 * (so the session dir is in every browser process's command line or environment), it
 * stays in the harness's process group (toolhost's session group), and it speaks the
 * DevTools protocol on a pipe; it is ready when it answers its first command.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import type { Readable, Writable } from "node:stream";
import { Cdp } from "./cdp.ts";

/** A running browser. */
export interface Browser {
  /** The browser's main process. */
  child: ChildProcess;
  /** Its DevTools connection (over the pipe). */
  cdp: Cdp;
}

/** Options of {@linkcode launchChromium}. */
export interface LaunchOptions {
  /** The session directory; the profile is `<sessionDir>/chromium-profile`. */
  sessionDir: string;
  /** Executable. Default `$CHROMIUM` (the name the scaffold reads too) or `chromium`. */
  executable?: string;
  /** Viewport width × height in CSS pixels. Default 800 × 600. */
  width?: number;
  /** Viewport height. Default 600. */
  height?: number;
}

const MAX_STDERR = 4096;
/** How long Chromium may take to answer its first command (a busy machine). */
const START_TIMEOUT_MS = 60_000;
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
    "--remote-debugging-pipe",
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
 * Start Chromium and wait until it answers over its pipe; rejects if it exits (or fails
 * to answer) first, after writing its last stderr to the harness's stderr — the author's
 * diagnostics, which toolhost never puts in a result.
 *
 * @example
 * ```ts ignore
 * const b = await launchChromium({ sessionDir: "/tmp/s" });
 * console.log(await b.cdp.send("Browser.getVersion"));
 * ```
 */
export async function launchChromium(o: LaunchOptions): Promise<Browser> {
  const exe = o.executable ?? (process.env.CHROMIUM || "chromium");
  const env = { ...process.env, TMPDIR: socketTmpDir(o.sessionDir) };
  const child = spawn(exe, chromiumArgs(o), {
    stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
    env,
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (s: string) => stderr = (stderr + s).slice(-MAX_STDERR));
  const died = new Promise<never>((_resolve, reject) => {
    child.once("error", () => reject(new Error(`could not start ${exe}: is Chromium installed?`)));
    child.once("exit", () => reject(new Error("Chromium exited while starting")));
  });
  died.catch(() => {});
  const cdp = new Cdp(child.stdio[3] as Writable, child.stdio[4] as Readable);
  try {
    await Promise.race([cdp.send("Browser.getVersion", {}, undefined, START_TIMEOUT_MS), died]);
  } catch (e) {
    child.kill("SIGKILL");
    if (stderr !== "") console.error(stderr);
    throw e;
  }
  return { child, cdp };
}
