/**
 * This process's own identity as the owner of the folders it makes in a state directory
 * (call directories, artifact stores, session roots): pid, start time, boot id and pid
 * namespace. Other toolhost processes sharing the state directory judge those folders by
 * it — an owner whose start time or boot id does not match a live process is taken for
 * dead, its folders removed and its groups ended — so a record with a part missing that
 * this system does provide would hand this live process's folders to every other sweep.
 *
 * The identity is therefore complete or refused: where `/proc` is there, a start time and
 * (where the kernel has one) a boot id that cannot be read right now (EMFILE under a
 * descriptor flood) throw a `PreparationFailed`, and nothing is cached until it was read
 * whole. Without `/proc` (not Linux), pid alone is what there is.
 *
 * @module
 */

import { existsSync } from "node:fs";
import process from "node:process";
import { PreparationFailed } from "../errors/errors.ts";
import { currentBootId, currentPidNs, readProcStat } from "./proc_identity.ts";

/** An owner record: the process that made a folder. */
export interface OwnIdentity {
  /** Process id. */
  pid: number;
  /** Start time in clock ticks since boot, or null where `/proc` does not exist. */
  startTime: number | null;
  /** Kernel boot id, or null where the kernel provides none. */
  bootId: string | null;
  /** Pid namespace, or null where `/proc` does not provide it. */
  pidNs: string | null;
}

let cached: OwnIdentity | undefined;

const BOOT_ID_FILE = "/proc/sys/kernel/random/boot_id";
const PID_NS_FILE = "/proc/self/ns/pid";

/**
 * This process's identity, complete (see the module documentation); throws
 * `PreparationFailed` when part of it cannot be read right now.
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { ownIdentity } from "./own_identity.ts";
 * ownIdentity().pid === process.pid; // true
 * ```
 */
export function ownIdentity(): OwnIdentity {
  if (cached !== undefined && cached.pid === process.pid) return cached;
  const pid = process.pid;
  if (!existsSync("/proc/self/stat")) {
    return { pid, startTime: null, bootId: currentBootId(), pidNs: currentPidNs() };
  }
  const startTime = readProcStat(pid)?.startTime ?? null;
  const bootId = currentBootId();
  const pidNs = currentPidNs();
  const missing = (value: string | null, file: string) => value === null && existsSync(file);
  if (startTime === null || missing(bootId, BOOT_ID_FILE) || missing(pidNs, PID_NS_FILE)) {
    throw new PreparationFailed(
      "toolhost could not read its own process identity (too many open files?); nothing was started — try again.",
    );
  }
  cached = { pid, startTime, bootId, pidNs };
  return cached;
}
