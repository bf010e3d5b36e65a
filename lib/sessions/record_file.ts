/**
 * Reading a record file (an owner record or a journal) from a state directory that may
 * have been forged — a cloned repository can ship `.toolhost/state`. The file is opened
 * with `O_NOFOLLOW | O_NONBLOCK` and must be a regular file of bounded size, so a symlink
 * (to `/dev/zero`, another user's file, ...) or a FIFO can neither be followed nor block.
 *
 * @module
 */

import { constants } from "node:fs";
import { open } from "node:fs/promises";

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) |
  (constants.O_NONBLOCK ?? 0);

/** What reading a record file found. */
export type RecordRead =
  | { kind: "absent" }
  | { kind: "refused" }
  | { kind: "text"; text: string };

/**
 * Read a record file: `absent` when it does not exist, `refused` when it is not a regular
 * file (symlink, FIFO, device, folder) or holds more than `maxBytes`, else its UTF-8 text.
 * Rejects only on other I/O errors (such as a permission error).
 *
 * @example
 * ```ts
 * import { readRecordFile } from "./record_file.ts";
 * const r = await readRecordFile("/nonexistent/owner.json", 4096);
 * console.log(r.kind); // "absent"
 * ```
 */
export async function readRecordFile(path: string, maxBytes: number): Promise<RecordRead> {
  let fh;
  try {
    fh = await open(path, OPEN_FLAGS);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "absent" };
    if (code === "ELOOP" || code === "EMLINK") return { kind: "refused" }; // a symlink
    throw e;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile() || st.size > maxBytes) return { kind: "refused" };
    const bytes = await fh.readFile();
    if (bytes.byteLength > maxBytes) return { kind: "refused" };
    return { kind: "text", text: new TextDecoder().decode(bytes) };
  } finally {
    await fh.close();
  }
}
