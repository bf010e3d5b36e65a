/**
 * Closing a descriptor on a path where a second error would only hide the first.
 *
 * @module
 */

import fs from "node:fs";

/**
 * Close a descriptor, ignoring one already closed.
 *
 * @example
 * ```ts
 * import fs from "node:fs";
 * import { closeQuietly } from "./close_quietly.ts";
 * closeQuietly(fs.openSync("/tmp", "r"));
 * ```
 */
export function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch { /* already closed */ }
}
