/**
 * Where a native write lands, and what the file there held: the types shared by
 * write_fs.ts (opening and committing) and write_current.ts (reading what is there).
 *
 * @module
 */

import type { DirHandle, Sandbox } from "../paths/sandbox.ts";

/** Where a write lands: an open, verified parent folder and the entry name. */
export interface WriteTarget {
  /** The sandbox (owned by the caller). */
  box: Sandbox;
  /** The parent folder (close with {@link closeTarget}). */
  dir: DirHandle;
  /** Entry name in `dir`. */
  name: string;
  /** Logical path (for messages). */
  logical: string;
  /** Rewrite in place (a file Artifact's own file) instead of renaming a temporary file. */
  inPlace: boolean;
  /** Folders this target created, outermost first (parent handle base + name). */
  created: { base: string; name: string }[];
}

/** A regular file's current state. */
export interface CurrentFile {
  /** Its bytes. */
  bytes: Uint8Array;
  /** Permission bits. */
  mode: number;
  /** `dev:ino`, to detect a swap before committing. */
  id: string;
}
