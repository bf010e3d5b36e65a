/**
 * Pins that stay true while a registry lives: pinning a path also records the identity
 * (device, inode, size, mtime, ctime, mode) of the file, or of every entry and every
 * directory of a folder. Before each call {@link snapshotUnchanged} compares identities
 * (one `lstat` each, no reading); only when something moved is the path walked again and
 * just the moved files re-hashed ({@link repin}), giving the digest the call is checked
 * against. ctime cannot be set back by a writer, so an edit, a rename over, a new or
 * removed entry, a `chmod` all show — except within the second a ctime was read in: under
 * Deno it has whole-second resolution (and mtime can be set back), so a same-size edit in
 * that second keeps the identity. An identity whose ctime is not older than the second
 * before its `lstat` therefore vouches for nothing (git's "racily clean"): it never
 * compares equal, and the file is hashed again at the next check.
 *
 * The digest is the same as `pinPath`'s (see `dir_digest.ts`).
 *
 * @module
 */

import type { BigIntStats } from "node:fs";
import { lstatSync, readlinkSync } from "node:fs";
import { resolveDeclaredPath } from "./declared_path.ts";
import { type DigestLine, directoryDigest, symlinkDigest } from "./dir_digest.ts";
import { describeFsError, isPinFailure, pinFailure, quotePath } from "./failure.ts";
import { FileChanged, hashRegularFile } from "./hash_file.ts";
import { type PinOptions, resolvePinOptions } from "./options.ts";
import { collectEntries, type DirEntry, type PinEntry } from "./walk_dir.ts";

/** One retained entry with its digest. */
export interface SnapEntry {
  /** Physical path (never put in messages). */
  abs: string;
  /** POSIX path relative to the pinned directory. */
  rel: string;
  /** `f` for a regular file, `l` for a symlink. */
  kind: "f" | "l";
  /** Its identity when hashed (see {@link identityOf}). */
  id: string;
  /** SHA-256 of the file's bytes, or of the symlink's target. */
  digest: string;
  /**
   * A symlink's target text, the very bytes `digest` is the hash of (as UTF-8): what a
   * check of where the link leads must use, never a second `readlink`.
   */
  target?: string;
}

/** A pinned path and the identities its digest was computed from. */
export interface PathSnapshot {
  /** Declared (workspace-relative) path. */
  readonly declared: string;
  /** Its digest (what provenance shows). */
  digest: string;
  /** Physical path of the declared path (never put in messages). */
  abs: string;
  /** Identity of the declared path itself. */
  id: string;
  /** Every directory below it, by physical path → identity (folders only). */
  dirs: Map<string, string>;
  /** Every file and symlink below it (folders only). */
  entries: Map<string, SnapEntry>;
}

let racy = 0;

/**
 * The identity of a file system object as one string. `since` is the time (ms, as
 * `Date.now()`) taken before the stat: a ctime in that second or later may not show an
 * edit made later in the same second, so such an identity is made unique — it never
 * equals another one, and what it stands for is read again.
 *
 * @example
 * ```ts
 * import { lstatSync } from "node:fs";
 * import { identityOf } from "./pin_snapshot.ts";
 * const since = Date.now();
 * identityOf(lstatSync("deno.json", { bigint: true }), since).split(":").length; // 6 (7 when just edited)
 * ```
 */
export function identityOf(st: BigIntStats, since: number): string {
  const id = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.mode}`;
  const fresh = st.ctimeNs / 1_000_000_000n >= BigInt(Math.floor(since / 1000));
  return fresh ? `${id}:racy${++racy}` : id;
}

function idNow(abs: string): string | undefined {
  try {
    const since = Date.now();
    return identityOf(lstatSync(abs, { bigint: true }), since);
  } catch {
    return undefined;
  }
}

/** An entry's digest and, for a symlink, the target text hashed. */
async function digestOf(
  declared: string,
  e: PinEntry,
): Promise<{ digest: string; target?: string }> {
  const what = `entry ${quotePath(`${declared}/${e.rel}`)}`;
  try {
    if (e.kind === "f") return { digest: await hashRegularFile(e.abs, e.stat) };
    const bytes = readlinkSync(e.abs, { encoding: "buffer" });
    return { digest: symlinkDigest(bytes), target: new TextDecoder().decode(bytes) };
  } catch (err) {
    if (isPinFailure(err)) throw err;
    if (err instanceof FileChanged) throw pinFailure(declared, `${what} ${err.message}`);
    throw pinFailure(declared, describeFsError(err, what));
  }
}

/**
 * Pin `declared` under `root` and record what it was computed from. `previous`: a
 * snapshot of the same path whose digests are reused for entries whose identity has not
 * changed (only moved files are read again). Throws `PreparationFailed` like `pinPath`.
 *
 * @example
 * ```ts
 * import { snapshotPath } from "./pin_snapshot.ts";
 * const snap = await snapshotPath(".", "lib/pins");
 * console.log(snap.digest.length); // 64
 * ```
 */
export async function snapshotPath(
  root: string,
  declared: string,
  opts: PinOptions = {},
  previous?: PathSnapshot,
): Promise<PathSnapshot> {
  const budgets = resolvePinOptions(opts);
  const since = Date.now(); // before every stat this snapshot is made of
  const target = await resolveDeclaredPath(root, declared);
  const id = identityOf(target.stat, since);
  const base = { declared, abs: target.abs, id, dirs: new Map(), entries: new Map() };
  if (target.kind === "file") {
    if (target.stat.size > BigInt(budgets.maxBytes)) {
      throw pinFailure(
        declared,
        `it holds more than ${budgets.maxBytes} bytes of file data (the pin limit)`,
      );
    }
    const reuse = previous !== undefined && previous.id === id && previous.entries.size === 0;
    const digest = reuse
      ? previous.digest
      : (await digestOf(declared, { rel: "", abs: target.abs, kind: "f", stat: target.stat }))
        .digest;
    return { ...base, digest };
  }
  const dirs: DirEntry[] = [];
  const found = await collectEntries(target.abs, declared, budgets, dirs);
  const entries = new Map<string, SnapEntry>();
  const lines: DigestLine[] = [];
  for (const e of found) {
    const eid = identityOf(e.stat, since);
    const old = previous?.entries.get(e.abs);
    // An unchanged identity keeps the digest and the link text it was taken from together.
    const { digest, target } = old !== undefined && old.id === eid && old.kind === e.kind
      ? old
      : await digestOf(declared, e);
    entries.set(e.abs, { abs: e.abs, rel: e.rel, kind: e.kind, id: eid, digest, target });
    lines.push({ rel: e.rel, kind: e.kind, digest });
  }
  return {
    ...base,
    digest: directoryDigest(lines),
    dirs: new Map(dirs.map((d) => [d.abs, identityOf(d.stat, since)])),
    entries,
  };
}

/**
 * Whether nothing `snap` was computed from has moved: one `lstat` per path, entry and
 * directory, no reading. False means: call {@link repin} before trusting the digest.
 *
 * @example
 * ```ts
 * import { snapshotPath, snapshotUnchanged } from "./pin_snapshot.ts";
 * snapshotUnchanged(await snapshotPath(".", "lib/pins")); // true
 * ```
 */
export function snapshotUnchanged(snap: PathSnapshot): boolean {
  if (idNow(snap.abs) !== snap.id) return false;
  for (const [abs, id] of snap.dirs) if (idNow(abs) !== id) return false;
  for (const e of snap.entries.values()) if (idNow(e.abs) !== e.id) return false;
  return true;
}

/**
 * The path's digest now, re-hashing only what moved since `snap`; undefined when it can
 * no longer be pinned (missing, a symlink or special file now, over a budget).
 *
 * @example
 * ```ts
 * import { repin, snapshotPath } from "./pin_snapshot.ts";
 * const snap = await snapshotPath(".", "lib/pins");
 * (await repin(".", snap))?.digest === snap.digest; // true
 * ```
 */
export async function repin(
  root: string,
  snap: PathSnapshot,
  opts: PinOptions = {},
): Promise<PathSnapshot | undefined> {
  try {
    return await snapshotPath(root, snap.declared, opts, snap);
  } catch (e) {
    if (isPinFailure(e)) return undefined;
    throw e;
  }
}
