/**
 * `toolhost init` keeps the state directory out of git: it adds `.toolhost/` to the
 * workspace's `.gitignore`, creating the file when missing, keeping what it holds, and
 * doing nothing when an entry already ignores it.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import fs from "node:fs";
import path from "node:path";
import { errnoOf } from "../paths/errno.ts";

/** What happened to `.gitignore`. */
export type GitignoreOutcome = "created" | "added" | "present" | "skipped";

/** Largest `.gitignore` read (a bigger one is left alone). */
const MAX_GITIGNORE_BYTES = 1 << 20;

const ENTRY = ".toolhost/";
const IGNORES_STATE = new Set([".toolhost", ".toolhost/", "/.toolhost", "/.toolhost/"]);

/**
 * Make `<root>/.gitignore` ignore `.toolhost/`. Never follows a symlink, never rewrites
 * existing lines (it only appends), and leaves a special or oversized file alone
 * (`skipped`). Idempotent.
 *
 * @example
 * ```ts
 * import fs from "node:fs";
 * import os from "node:os";
 * import path from "node:path";
 * import { ignoreStateDir } from "./gitignore.ts";
 * const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ws-"));
 * ignoreStateDir(dir); // "created"
 * ignoreStateDir(dir); // "present"
 * ```
 */
export function ignoreStateDir(root: string): GitignoreOutcome {
  const file = path.join(root, ".gitignore");
  let fd: number;
  try {
    fd = fs.openSync(file, "wx", 0o644);
    try {
      fs.writeSync(fd, `# toolhost's state directory (sessions, calls, artifacts)\n${ENTRY}\n`);
    } finally {
      fs.closeSync(fd);
    }
    return "created";
  } catch (e) {
    if (errnoOf(e) !== "EEXIST") return "skipped";
  }
  try {
    const { O_RDWR, O_APPEND, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
    fd = fs.openSync(file, O_RDWR | O_APPEND | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    return "skipped"; // a symlink, or unreadable
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > MAX_GITIGNORE_BYTES) return "skipped";
    const buf = Buffer.alloc(st.size);
    const n = fs.readSync(fd, buf, 0, st.size, 0);
    const text = buf.subarray(0, n).toString("utf8");
    if (text.split(/\r?\n/).some((l) => IGNORES_STATE.has(l.trim()))) return "present";
    const sep = text === "" || text.endsWith("\n") ? "" : "\n";
    fs.writeSync(fd, `${sep}${ENTRY}\n`);
    return "added";
  } catch {
    return "skipped";
  } finally {
    fs.closeSync(fd);
  }
}
