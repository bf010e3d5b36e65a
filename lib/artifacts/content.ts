/**
 * Reading an artifact's text at call time, re-checking the file safely.
 *
 * @module
 */

import { promises as fsp } from "node:fs";
import { createHash } from "node:crypto";
import { MAX_ARTIFACT_BYTES } from "../odek/constants.ts";
import {
  confirmOpenedPath,
  type FileIdentity,
  openSameFile,
  readExactly,
  SAFE_OPEN_FLAGS,
} from "../odek/hash.ts";
import type { StoredArtifact } from "./types.ts";

/** Why an artifact's content cannot be given as text. */
export type ContentProblem = "binary" | "changed";

/** The content is binary, or the file is no longer the one validated. */
export class ContentUnavailable extends Error {
  /** What is wrong. */
  readonly problem: ContentProblem;
  /** Create the error (no path, no content). */
  constructor(problem: ContentProblem) {
    super(problem === "binary" ? "artifact content is binary" : "artifact file changed");
    this.name = "ContentUnavailable";
    this.problem = problem;
  }
}

async function openChecked(a: StoredArtifact): Promise<[fsp.FileHandle, FileIdentity]> {
  if (a.identity) {
    try {
      return [await openSameFile(a.path, a.identity), a.identity];
    } catch {
      throw new ContentUnavailable("changed");
    }
  }
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(a.path, SAFE_OPEN_FLAGS);
  } catch {
    throw new ContentUnavailable("changed");
  }
  try {
    const st = await fh.stat({ bigint: true });
    const size = Number(st.size);
    const declared = a.ref.size_bytes;
    if (
      !st.isFile() || size > MAX_ARTIFACT_BYTES || (declared !== undefined && declared !== size)
    ) {
      throw new ContentUnavailable("changed");
    }
    await confirmOpenedPath(fh, a.path);
    return [fh, { dev: st.dev, ino: st.ino, size }];
  } catch {
    await fh.close().catch(() => {});
    throw new ContentUnavailable("changed");
  }
}

/**
 * Read an artifact's bytes (at most 64 MiB) after re-checking it: opened with
 * `O_NOFOLLOW|O_NONBLOCK`, the descriptor confirmed to be the stored path
 * (`confirmOpenedPath`), still a regular file with the validated device, inode and
 * size, and — when the ref carries `sha256` — still hashing to it.
 * Throws {@link ContentUnavailable} `changed` otherwise.
 *
 * @example
 * ```ts
 * import { readArtifactBytes } from "./content.ts";
 * const ref = { schema: "odek.artifact-ref/v1", id: "h", uri: "file:///etc/hostname", media_type: "text/plain" };
 * const bytes = await readArtifactBytes({ ref, path: "/etc/hostname" });
 * ```
 */
export async function readArtifactBytes(a: StoredArtifact): Promise<Uint8Array> {
  const [fh, id] = await openChecked(a);
  const buf = new Uint8Array(id.size);
  try {
    let at = 0;
    await readExactly(fh, id.size, (chunk) => {
      buf.set(chunk, at);
      at += chunk.length;
    });
  } catch {
    throw new ContentUnavailable("changed");
  } finally {
    await fh.close().catch(() => {});
  }
  const sha = a.ref.sha256;
  if (sha !== undefined && createHash("sha256").update(buf).digest("hex") !== sha) {
    throw new ContentUnavailable("changed");
  }
  return buf;
}

/**
 * Read an artifact's content as text. Content with a NUL byte or that is not valid
 * UTF-8 is binary: {@link ContentUnavailable} `binary`. A leading BOM is dropped.
 *
 * @example
 * ```ts
 * import { readArtifactText } from "./content.ts";
 * const ref = { schema: "odek.artifact-ref/v1", id: "h", uri: "file:///etc/hostname", media_type: "text/plain" };
 * const text = await readArtifactText({ ref, path: "/etc/hostname" });
 * ```
 */
export async function readArtifactText(a: StoredArtifact): Promise<string> {
  const bytes = await readArtifactBytes(a);
  if (bytes.includes(0)) throw new ContentUnavailable("binary");
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ContentUnavailable("binary");
  }
}
