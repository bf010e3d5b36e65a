/**
 * Reading a one-line `/proc` file (`/proc/<pid>/stat`, `/proc/loadavg`) in one `read`.
 * `readFileSync` sees a size of 0 there and reads in growing chunks (32, 32, 64, 128,
 * 256 bytes, then one more for the end) after an `fstat` and an `lseek`: eleven system
 * calls per `/proc/<pid>/stat`, of which a call reads several. The kernel produces such a
 * file whole on the first `read`, so one `read` into a 4 KiB buffer returns the line.
 *
 * @module
 */

import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { Buffer } from "node:buffer";

/** The shared read buffer (the reads are synchronous, so never used by two at once). */
const BUFFER = Buffer.alloc(4096);

const NEWLINE = 0x0a;

/**
 * The text of the one-line file `path` (latin1, with its newline). Throws as
 * `readFileSync` does (ENOENT when the process is gone). A file that does not end its
 * line within 4 KiB is read again whole with `readFileSync`.
 *
 * @example
 * ```ts
 * import { readProcLine } from "./proc_line.ts";
 * readProcLine("/proc/loadavg").split(" ").length; // 5
 * ```
 */
export function readProcLine(path: string): string {
  const fd = openSync(path, "r");
  let n = 0;
  try {
    while (n < BUFFER.length) {
      const got = readSync(fd, BUFFER, n, BUFFER.length - n, null);
      if (got === 0) break;
      n += got;
      if (BUFFER[n - 1] === NEWLINE) return BUFFER.toString("latin1", 0, n);
    }
  } finally {
    closeSync(fd);
  }
  return n < BUFFER.length ? BUFFER.toString("latin1", 0, n) : readFileSync(path, "latin1");
}
