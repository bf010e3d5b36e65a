/**
 * A folder opened and checked as an exact sandbox root ahead of the sandbox: the pre-call
 * target check of a built-in's declaring folder and the sandbox's own open are then one
 * open, one `/proc/self/fd` check (see `callTool`).
 *
 * @module
 */

import fs from "node:fs";
import { closeQuietly } from "./close_quietly.ts";
import { procfsAvailable } from "./procfs_probe.ts";
import type { PinnedRoot } from "./sandbox_types.ts";

export type { PinnedRoot } from "./sandbox_types.ts";

/** What `Sandbox.open` with `exact` opens a root with. */
const ROOT_FLAGS = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW;

/**
 * Open `physicalDir` as `Sandbox.open` with `exact` does — `O_NOFOLLOW`, then
 * `/proc/self/fd` must name exactly that path — or undefined when it cannot be (missing,
 * moved, replaced by a symlink, no procfs, anything): the caller then checks the slower
 * way, which also says what is wrong. Release it with {@link releasePin} when no sandbox
 * took it.
 *
 * @example
 * ```ts
 * import { pinRoot, releasePin } from "./root_pin.ts";
 * const pin = pinRoot("/tmp");
 * if (pin) releasePin(pin);
 * ```
 */
export function pinRoot(physicalDir: string): PinnedRoot | undefined {
  if (!procfsAvailable()) return undefined;
  let fd: number;
  try {
    fd = fs.openSync(physicalDir, ROOT_FLAGS);
  } catch {
    return undefined;
  }
  try {
    if (fs.readlinkSync(`/proc/self/fd/${fd}`) === physicalDir) return { path: physicalDir, fd };
  } catch { /* checked the slower way */ }
  closeQuietly(fd);
  return undefined;
}

/**
 * Close a pinned root no sandbox took (a no-op once one did).
 *
 * @example
 * ```ts
 * import { pinRoot, releasePin } from "./root_pin.ts";
 * const pin = pinRoot("/tmp");
 * if (pin) releasePin(pin);
 * ```
 */
export function releasePin(pin: PinnedRoot): void {
  if (pin.fd < 0) return;
  closeQuietly(pin.fd);
  pin.fd = -1;
}
