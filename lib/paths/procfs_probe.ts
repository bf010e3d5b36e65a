/**
 * Whether `/proc/self/fd` can be trusted to show what a descriptor is: the sandbox's
 * lookups, the exact root pin and tree removal go through it where it can.
 *
 * @module
 */

import fs from "node:fs";
import { closeQuietly } from "./close_quietly.ts";

/** How the probe opens `/` (as the sandbox opens a root it trusts). */
const PROBE_FLAGS = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY;

let procfsState: boolean | undefined;

/**
 * Whether `/proc/self/fd` shows what a descriptor is, probed once on `/` (never on a
 * caller's path, which a swap could make disagree and so switch the checks off).
 *
 * @example
 * ```ts
 * import { procfsAvailable } from "./procfs_probe.ts";
 * console.log(procfsAvailable()); // true on Linux
 * ```
 */
export function procfsAvailable(): boolean {
  if (procfsState === undefined) {
    try {
      const fd = fs.openSync("/", PROBE_FLAGS);
      try {
        procfsState = fs.readlinkSync(`/proc/self/fd/${fd}`) === "/";
      } finally {
        closeQuietly(fd);
      }
    } catch {
      procfsState = false;
    }
  }
  return procfsState;
}
