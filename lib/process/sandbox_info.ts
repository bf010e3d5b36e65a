/**
 * Which process is a sandbox's init, from bwrap itself: `--info-fd` makes bwrap write the
 * init's host pid and its PID namespace right after `clone`, before anything runs in the
 * sandbox. The init dead (gone, or a zombie) proves the whole sandbox has ended — the
 * kernel ends every other process of the namespace before its init can exit — so ending
 * a sandbox needs two cheap checks instead of `/proc` scans, even when the init lingers
 * as a zombie of a slow system reaper long after bwrap has exited (the init is bwrap's
 * child, re-parented when bwrap exits).
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { readlinkSync } from "node:fs";
import process from "node:process";
import type { Readable } from "node:stream";
import { readProcStat } from "./proc_identity.ts";

/** The file descriptor a sandboxed spawn gives bwrap for `--info-fd` (a pipe). */
export const SANDBOX_INFO_FD = 3;

/** Most bytes read from the info pipe (bwrap writes about 100). */
const MAX_INFO_BYTES = 4096;

/** A sandbox's init: host pid and PID namespace (`pid:[N]`). */
export interface SandboxInfo {
  /** Host pid of the namespace's init. */
  pid: number;
  /** The PID namespace's inode number. */
  pidNs: number;
}

/**
 * Parse what bwrap wrote to its info fd, or undefined when it is not that.
 *
 * @example
 * ```ts
 * import { parseSandboxInfo } from "./sandbox_info.ts";
 * parseSandboxInfo('{"child-pid": 42, "pid-namespace": 4026532181}'); // { pid: 42, pidNs: 4026532181 }
 * ```
 */
export function parseSandboxInfo(text: string): SandboxInfo | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== "object" || v === null) return undefined;
  const pid = (v as Record<string, unknown>)["child-pid"];
  const pidNs = (v as Record<string, unknown>)["pid-namespace"];
  if (!Number.isSafeInteger(pid) || (pid as number) < 2) return undefined;
  if (!Number.isSafeInteger(pidNs) || (pidNs as number) < 1) return undefined;
  return { pid: pid as number, pidNs: pidNs as number };
}

/**
 * Read the info bwrap writes to `stream` (bounded), resolving as soon as it is complete
 * (or, with undefined, when the stream closes without it).
 *
 * @example
 * ```ts
 * import { Buffer } from "node:buffer";
 * import { Readable } from "node:stream";
 * import { readSandboxInfo } from "./sandbox_info.ts";
 * const info = [Buffer.from('{"child-pid": 42, "pid-namespace": 7}')];
 * await readSandboxInfo(Readable.from(info)); // { pid: 42, pidNs: 7 }
 * ```
 */
export function readSandboxInfo(stream: Readable): Promise<SandboxInfo | undefined> {
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const parsed = () => parseSandboxInfo(Buffer.concat(chunks).toString("utf8"));
    let over = false;
    stream.on("data", (c: Uint8Array) => {
      if (over || size + c.length > MAX_INFO_BYTES) {
        over = true;
        resolve(undefined);
        return void stream.destroy();
      }
      chunks.push(c);
      size += c.length;
      const info = parsed(); // bwrap writes it with one write
      if (info !== undefined) resolve(info);
    });
    stream.once("close", () => resolve(over ? undefined : parsed()));
    stream.once("error", () => resolve(undefined));
  });
}

/** `ended`: gone or a zombie; `running`: ours, alive; `unknown`: cannot tell. */
export type InitState = "ended" | "running" | "unknown";

/**
 * Whether a sandbox's init still runs. A live process under its pid in another PID
 * namespace is a reused pid: ours has ended.
 *
 * @example
 * ```ts
 * import { initState } from "./sandbox_info.ts";
 * initState({ pid: 999999999, pidNs: 1 }); // "ended"
 * ```
 */
export function initState(info: SandboxInfo): InitState {
  const st = readProcStat(info.pid);
  if (st === null || st.state === "Z" || st.state === "X") return "ended";
  let link: string;
  try {
    link = readlinkSync(`/proc/${info.pid}/ns/pid`);
  } catch (e) {
    // Gone between the two reads; anything else (EACCES) leaves it unknown.
    return (e as { code?: string }).code === "ENOENT" ? "ended" : "unknown";
  }
  return link === `pid:[${info.pidNs}]` ? "running" : "ended";
}

/** Looks at a dying init before the first sleep (see {@linkcode endInit}). */
const IMMEDIATE_ROUNDS = 2;

/**
 * End a sandbox by its init: SIGKILL it while it runs, then wait (at most `ms`) until it
 * has ended. True when it has — then nothing of the sandbox runs any more, and its
 * mounts are gone too (its output and tmp dirs can be removed: the init, last in its
 * mount namespace, tears it down before it exits; a SIGKILLed init with no child left is
 * not enough).
 *
 * @example
 * ```ts
 * import { endInit } from "./sandbox_info.ts";
 * await endInit({ pid: 999999999, pidNs: 1 }, 100); // true
 * ```
 */
export async function endInit(info: SandboxInfo, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  let pause = 1;
  for (let round = 0;; round++) {
    const state = initState(info);
    if (state === "ended") return true;
    if (state === "unknown" || info.pid === process.pid) return false;
    try {
      process.kill(info.pid, "SIGKILL");
    } catch { /* ended meanwhile */ }
    const left = deadline - Date.now();
    if (left <= 0) return false;
    // After a call the init is usually ending already (its last process has exited) and
    // is gone within a fraction of a millisecond: look again at once, twice, before
    // sleeping (a timer's first wake-up alone is a millisecond or more).
    if (round < IMMEDIATE_ROUNDS) await new Promise((r) => setImmediate(r));
    else {
      await new Promise((r) => setTimeout(r, Math.min(pause, left)));
      pause = Math.min(pause * 2, 50);
    }
  }
}
