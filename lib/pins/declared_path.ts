/**
 * Validate a declared execution path and resolve it inside the workspace without following
 * symlinks: every component is `lstat`ed and a symlink anywhere in the declared path fails.
 *
 * @module
 */

import { lstat } from "node:fs/promises";
import type { BigIntStats } from "node:fs";
import { join } from "node:path";
import { describeFsError, pinFailure } from "./failure.ts";

/** What a declared path resolved to. */
export interface DeclaredTarget {
  /** `file` for a regular file, `dir` for a directory. */
  kind: "file" | "dir";
  /** Physical path (never put in messages). */
  abs: string;
  /** `lstat` of the final component. */
  stat: BigIntStats;
}

/**
 * Split a declared path into components, or throw `PreparationFailed` if it is not a plain
 * workspace-relative POSIX path (absolute, empty, `.`/`..`/empty components, `\`, NUL).
 *
 * @example
 * ```ts
 * import { splitDeclaredPath } from "./declared_path.ts";
 * splitDeclaredPath("tools/run"); // ["tools", "run"]
 * ```
 */
export function splitDeclaredPath(declared: string): string[] {
  if (typeof declared !== "string" || declared === "") {
    throw pinFailure("", "the path is empty");
  }
  if (declared.startsWith("/") || /^[A-Za-z]:/.test(declared)) {
    // Do not echo an absolute (physical) path.
    throw pinFailure("<absolute path>", "it must be relative to the workspace root");
  }
  if (declared.includes("\0")) throw pinFailure(declared, "it contains a NUL character");
  if (declared.includes("\\")) {
    throw pinFailure(declared, "it contains `\\`; separate components with `/`");
  }
  const parts = declared.split("/");
  for (const part of parts) {
    if (part === "") throw pinFailure(declared, "it has an empty component");
    if (part === "." || part === "..") {
      throw pinFailure(declared, "`.` and `..` components are not allowed");
    }
  }
  return parts;
}

/**
 * Resolve a declared path under `workspaceRoot`, `lstat`ing each component: intermediate
 * components must be real directories, the last a regular file or a directory.
 *
 * @example
 * ```ts
 * import { resolveDeclaredPath } from "./declared_path.ts";
 * const t = await resolveDeclaredPath(".", "lib");
 * console.log(t.kind); // "dir"
 * ```
 */
export async function resolveDeclaredPath(
  workspaceRoot: string,
  declared: string,
): Promise<DeclaredTarget> {
  const parts = splitDeclaredPath(declared);
  let abs = workspaceRoot;
  for (let i = 0; i < parts.length; i++) {
    abs = join(abs, parts[i]);
    const where = i === parts.length - 1 ? "it" : `component ${quoteComponent(parts[i])}`;
    const stat = await lstatOrFail(abs, declared, where);
    if (stat.isSymbolicLink()) throw pinFailure(declared, `${where} is a symlink`);
    if (i < parts.length - 1) {
      if (!stat.isDirectory()) throw pinFailure(declared, `${where} is not a directory`);
      continue;
    }
    if (stat.isFile()) return { kind: "file", abs, stat };
    if (stat.isDirectory()) return { kind: "dir", abs, stat };
    throw pinFailure(declared, `it is a special file (${specialKind(stat)})`);
  }
  throw pinFailure(declared, "the path is empty"); // unreachable: parts is non-empty
}

async function lstatOrFail(abs: string, declared: string, what: string): Promise<BigIntStats> {
  try {
    return await lstat(abs, { bigint: true });
  } catch (e) {
    throw pinFailure(declared, describeFsError(e, what));
  }
}

function quoteComponent(part: string): string {
  return JSON.stringify(part.length > 100 ? `${part.slice(0, 100)}…` : part);
}

/**
 * Name the kind of a special file (FIFO, socket, device).
 *
 * @example
 * ```ts
 * import { lstat } from "node:fs/promises";
 * import { specialKind } from "./declared_path.ts";
 * specialKind(await lstat("/dev/null", { bigint: true })); // "character device"
 * ```
 */
export function specialKind(stat: BigIntStats): string {
  if (stat.isFIFO()) return "FIFO";
  if (stat.isSocket()) return "socket";
  if (stat.isCharacterDevice()) return "character device";
  if (stat.isBlockDevice()) return "block device";
  return "not a regular file, directory or symlink";
}
