/**
 * Naming what a directory descriptor holds: on Linux `/proc/self/fd/N/name` is looked up
 * inside exactly the directory open on descriptor N, whatever its path now leads to — the
 * `openat` that `node:fs` lacks.
 *
 * @module
 */

import { closeSync, constants, openSync, readlinkSync } from "node:fs";

let procfsState: boolean | undefined;

/**
 * Whether `/proc/self/fd` shows what a descriptor is: probed once, on `/` (never on a
 * caller's path, which a swap could make disagree).
 *
 * @example
 * ```ts
 * import { procfsAvailable } from "./proc_fd.ts";
 * console.log(procfsAvailable()); // true on Linux with /proc mounted
 * ```
 */
export function procfsAvailable(): boolean {
  if (procfsState === undefined) {
    try {
      const fd = openSync("/", constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
      try {
        procfsState = readlinkSync(`/proc/self/fd/${fd}`) === "/";
      } finally {
        closeSync(fd);
      }
    } catch {
      procfsState = false;
    }
  }
  return procfsState;
}

/**
 * The prefix that names entries of the directory open on `fd`: `/proc/self/fd/<fd>`, or
 * undefined without procfs.
 *
 * @example
 * ```ts
 * import { closeSync, openSync, readdirSync } from "node:fs";
 * import { descriptorPath } from "./proc_fd.ts";
 * const fd = openSync(".", "r");
 * const base = descriptorPath(fd);
 * if (base !== undefined) console.log(readdirSync(base).length);
 * closeSync(fd);
 * ```
 */
export function descriptorPath(fd: number): string | undefined {
  return procfsAvailable() ? `/proc/self/fd/${fd}` : undefined;
}
