/**
 * Reading a file a tool wrote below its output directory, without ever leaving it:
 * no `..`, no symlink in any component (each is `lstat`ed), no special files, and the
 * final open uses `O_NOFOLLOW | O_NONBLOCK`, then `fstat` (regular, same inode as the
 * `lstat`) and `/proc/self/fd` (the opened file really is at the expected place, so a
 * directory swapped for a symlink mid-walk is caught).
 *
 * @module
 */

import { constants, readlinkSync, realpathSync } from "node:fs";
import { lstat, open } from "node:fs/promises";
import { basename, dirname, isAbsolute } from "node:path";

/** Outcome of {@linkcode readOutputFile}; reasons never contain the path. */
export type OutputFileRead =
  | { ok: true; bytes: Uint8Array }
  | { ok: false; reason: string };

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK |
  constants.O_NOCTTY;

function fail(reason: string): OutputFileRead {
  return { ok: false, reason };
}

/** Components of `requested` below `outputDir`, or a refusal reason. */
function components(outputDir: string, requested: string): string[] | string {
  if (requested.length === 0 || requested.length > 4096 || requested.includes("\0")) {
    return "the image path must be a nonempty path without NUL";
  }
  const parts = requested.split("/").filter((c) => c !== "" && c !== ".");
  if (parts.includes("..")) return "the image path must not contain `..`";
  if (!isAbsolute(requested)) return parts;
  const base = outputDir.split("/").filter((c) => c !== "" && c !== ".");
  if (parts.length <= base.length || base.some((c, i) => parts[i] !== c)) {
    return "the image path must be inside the output directory";
  }
  return parts.slice(base.length);
}

async function lstatOrNull(path: string) {
  try {
    return await lstat(path);
  } catch {
    return null;
  }
}

/** Check every component with `lstat`; returns the final file's stat or a reason. */
async function walk(outputDir: string, parts: string[]) {
  const root = await lstatOrNull(outputDir);
  if (root === null || root.isSymbolicLink() || !root.isDirectory()) {
    return "the output directory was replaced or removed";
  }
  let at = outputDir;
  for (let i = 0; i < parts.length; i++) {
    at = `${at}/${parts[i]}`;
    const st = await lstatOrNull(at);
    if (st === null) return "the image file does not exist";
    if (st.isSymbolicLink()) return "the image path must not contain symlinks";
    const last = i === parts.length - 1;
    if (!last && !st.isDirectory()) return "the image file does not exist";
    if (last && !st.isFile()) return "the image path must name a regular file";
    if (last) return { path: at, dev: st.dev, ino: st.ino };
  }
  return "the image path must name a regular file";
}

/** Where an open descriptor really points, via `/proc/self/fd`; null if unknown. */
function openedPath(fd: number): string | null {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

/**
 * Read `requested` (relative to `outputDir`, or absolute below it) safely, at most
 * `maxBytes`. `outputDir` is the path given to the tool.
 *
 * @example
 * ```ts
 * import { readOutputFile } from "./output_file.ts";
 * const r = await readOutputFile("/tmp/out", "../etc/passwd", 4 << 20);
 * console.log(r.ok); // false
 * ```
 */
export async function readOutputFile(
  outputDir: string,
  requested: string,
  maxBytes: number,
  tooLarge = "the file is too large",
): Promise<OutputFileRead> {
  const parts = components(outputDir, requested);
  if (typeof parts === "string") return fail(parts);
  const found = await walk(outputDir, parts);
  if (typeof found === "string") return fail(found);
  let expected: string;
  try {
    expected = `${realpathSync(dirname(outputDir))}/${basename(outputDir)}/${parts.join("/")}`;
  } catch {
    return fail("the output directory was replaced or removed");
  }
  let handle;
  try {
    handle = await open(found.path, OPEN_FLAGS);
  } catch (e) {
    const code = (e as { code?: string }).code;
    return fail(
      code === "ELOOP"
        ? "the image path must not contain symlinks"
        : "the image file could not be opened",
    );
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return fail("the image path must name a regular file");
    if (st.dev !== found.dev || st.ino !== found.ino || openedPath(handle.fd) !== expected) {
      return fail("the image file changed while it was being read");
    }
    if (st.size > maxBytes) return fail(tooLarge);
    const buf = new Uint8Array(Math.min(st.size, maxBytes) + 1);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await handle.read(buf, got, buf.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    if (got > maxBytes) return fail(tooLarge);
    return { ok: true, bytes: buf.subarray(0, got) };
  } finally {
    await handle.close();
  }
}
