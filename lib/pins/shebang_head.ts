/**
 * Reading a script's `#!` line the way the kernel does (fs/binfmt_script.c), so a lock
 * pins what the kernel passes on, not what the file seems to say past its first 255 bytes.
 *
 * @module
 */

import { closeSync, constants, openSync, readSync } from "node:fs";

/** Bytes the kernel reads for a `#!` line (Linux BINPRM_BUF_SIZE). */
const BINPRM_BUF_SIZE = 256;

/**
 * A file's `#!` line as the kernel sees it (fs/binfmt_script.c): the first 256 bytes, the
 * line ending at the first newline among them, else cut at byte 255 (its arguments
 * truncated, so `env` may be given a shorter program name than the file reads) — unless
 * the interpreter path itself could be cut (no space, tab or NUL after it), which the
 * kernel refuses (ENOEXEC): then nothing runs, and "" is returned.
 *
 * @example
 * ```ts
 * import { readHead } from "./shebang_head.ts";
 * readHead("/nonexistent"); // ""
 * ```
 */
export function readHead(path: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const buf = new Uint8Array(BINPRM_BUF_SIZE);
    let n = 0;
    for (let got = -1; got !== 0 && n < buf.length;) {
      got = readSync(fd, buf, n, buf.length - n, n);
      n += got;
    }
    let end = buf.subarray(0, n).indexOf(0x0a);
    if (end < 0 && n === BINPRM_BUF_SIZE) {
      end = BINPRM_BUF_SIZE - 1;
      if (buf[0] === 0x23 && buf[1] === 0x21 && !pathTerminated(buf, end)) return "";
    }
    const line = buf.subarray(0, end < 0 ? n : end);
    return `${new TextDecoder("utf-8", { fatal: false }).decode(line)}\n`;
  } catch {
    return "";
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Whether a space, tab or NUL follows the interpreter path before `end` (binfmt_script). */
function pathTerminated(buf: Uint8Array, end: number): boolean {
  let i = 2;
  while (i < end && (buf[i] === 0x20 || buf[i] === 0x09)) i++;
  if (i >= end) return false; // only spaces and tabs
  for (; i < end; i++) if (buf[i] === 0x20 || buf[i] === 0x09 || buf[i] === 0) return true;
  return false;
}
