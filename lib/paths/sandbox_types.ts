/**
 * The shapes the read-only sandbox (sandbox.ts) hands out and takes: its open options, a
 * pinned root, open folders and files, and folder entries.
 *
 * @module
 */

import type { EntryKind } from "./entry_kind.ts";

/**
 * Options of `Sandbox.open`.
 *
 * @example
 * ```ts
 * import type { SandboxOpenOptions } from "./sandbox_types.ts";
 * const opts: SandboxOpenOptions = { exact: true };
 * console.log(opts.exact); // true
 * ```
 */
export interface SandboxOpenOptions {
  /**
   * The path is a realpath that must still name the opened folder: no component may
   * have become a symlink or been moved since it was declared (an Artifact folder
   * swapped for a link to elsewhere). Checked after the open — by `/proc/self/fd` on
   * Linux, by realpath and identity elsewhere. Default false.
   */
  exact?: boolean;
  /**
   * A root already opened and checked exactly as `exact` opens it (`pinRoot`): when
   * it is for this path and not yet taken, the sandbox takes it (and closes it) instead
   * of opening the folder again. Default none.
   */
  pinned?: PinnedRoot;
}

/**
 * A folder opened and checked as an exact sandbox root, not yet given to a sandbox.
 *
 * @example
 * ```ts
 * import type { PinnedRoot } from "./sandbox_types.ts";
 * const released: PinnedRoot = { path: "/tmp", fd: -1 };
 * console.log(released.fd); // -1
 * ```
 */
export interface PinnedRoot {
  /** The realpath it was opened by and found at. */
  readonly path: string;
  /** The descriptor; -1 once a sandbox took it or it was released. */
  fd: number;
}

/**
 * An open directory inside the sandbox.
 *
 * @example
 * ```ts
 * import type { DirHandle } from "./sandbox_types.ts";
 * const h: DirHandle = { fd: 3, base: "/proc/self/fd/3" };
 * console.log(`${h.base}/name`); // "/proc/self/fd/3/name"
 * ```
 */
export interface DirHandle {
  /** The descriptor. */
  fd: number;
  /** Prefix addressing its children: `/proc/self/fd/N` or, without procfs, its path. */
  base: string;
}

/**
 * An open regular file inside the sandbox.
 *
 * @example
 * ```ts
 * import type { OpenedFile } from "./sandbox_types.ts";
 * const f: OpenedFile = { fd: 3, size: 0 };
 * console.log(f.size); // 0
 * ```
 */
export interface OpenedFile {
  /** The descriptor (the caller closes it with `fs.closeSync`). */
  fd: number;
  /** Size in bytes at open time. */
  size: number;
}

/**
 * One directory entry.
 *
 * @example
 * ```ts
 * import type { DirEntry } from "./sandbox_types.ts";
 * const e: DirEntry = { name: "notes.md", kind: "file" };
 * console.log(e.kind); // "file"
 * ```
 */
export interface DirEntry {
  /** Entry name. */
  name: string;
  /** Entry kind (symlinks are reported, never followed). */
  kind: EntryKind;
}
