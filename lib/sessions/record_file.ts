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
import { concatBytes } from "../bytes/concat_bytes.ts";

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
  const chunks: Uint8Array[] = [];
  const r = await streamRecordFile(path, maxBytes, (c) => {
    chunks.push(c.slice());
  });
  if (r.kind !== "read") return r;
  return {
    kind: "text",
    text: new TextDecoder().decode(concatBytes(chunks, { shareSingle: true })),
  };
}

/** What {@linkcode streamRecordFile} found. */
export type RecordStream =
  | { kind: "absent" }
  | { kind: "refused" }
  | { kind: "read" };

/** Bytes read at a time. */
const CHUNK = 64 * 1024;

/**
 * Read a record file chunk by chunk (at most 64 KiB in memory at a time), with the same
 * refusals as {@linkcode readRecordFile}. `onChunk` gets each chunk (valid until it
 * returns) and may return `false` to stop reading; the caller keeps what it needs, so
 * memory stays flat however large the file.
 *
 * @example
 * ```ts
 * import { streamRecordFile } from "./record_file.ts";
 * let bytes = 0;
 * await streamRecordFile("/nonexistent/journal.jsonl", 1024, (c) => { bytes += c.length; });
 * console.log(bytes); // 0
 * ```
 */
export async function streamRecordFile(
  path: string,
  maxBytes: number,
  onChunk: (chunk: Uint8Array) => boolean | void,
): Promise<RecordStream> {
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
    const buf = new Uint8Array(Math.min(CHUNK, maxBytes + 1));
    let total = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) return { kind: "refused" }; // it grew meanwhile
      if (onChunk(buf.subarray(0, bytesRead)) === false) break;
    }
    return { kind: "read" };
  } finally {
    await fh.close();
  }
}
