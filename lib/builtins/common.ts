/**
 * Shared pieces of the in-process built-ins: ownership metadata, error conversion,
 * sandbox lifetimes and descendant admission.
 *
 * @module
 */

import fs from "node:fs";
import path from "node:path";
import { Buffer } from "node:buffer";
import { CancelledError } from "../paths/walk.ts";
import { ToolhostError } from "../errors/errors.ts";
import { errorResult, type ToolResult } from "../results/types.ts";
import type { BuiltinEnv } from "./context.ts";
import { Sandbox } from "../paths/sandbox.ts";
import { makeDirsSync } from "../paths/make_dirs.ts";
import { isInsideRoots } from "../odek/roots.ts";
import type { ResolvedPath } from "../paths/resolve.ts";

/** Ownership metadata every path-based result carries. */
export interface Ownership {
  /** The declaring Artifact. */
  artifactId: string;
  /** The Artifact reached through a child folder (or the declaring one). */
  resolvedArtifactId: string;
  /** The logical request path. */
  path: string;
}

/**
 * The ownership fields of a resolved path.
 *
 * @example
 * ```ts
 * import { ownership } from "./common.ts";
 * // ownership(resolved) → { artifactId: "app", resolvedArtifactId: "spec", path: "rules/a.md" }
 * ```
 */
export function ownership(r: ResolvedPath): Ownership {
  return { artifactId: r.artifactId, resolvedArtifactId: r.resolvedArtifactId, path: r.path };
}

export { jsonBytes } from "../results/json_text.ts";

/**
 * Convert a thrown error into an error result. Toolhost errors carry value-free messages;
 * anything else (a bug or an unexpected system error) becomes a generic message, since
 * runtime messages may contain physical paths.
 *
 * @example
 * ```ts
 * import { toErrorResult } from "./common.ts";
 * toErrorResult(new Error("/secret/path")); // generic text, no path
 * ```
 */
export function toErrorResult(e: unknown): ToolResult {
  if (e instanceof ToolhostError) return errorResult(e.message);
  return errorResult("The built-in tool failed unexpectedly; try again or narrow the request.");
}

/**
 * Run `fn` with a sandbox pinned at the resolved root, closing it afterwards. Descendant
 * Artifacts the eval does not admit, and the registry's state directory (other calls'
 * output, spill files, logs), are also refused by physical identity, so no other name
 * (e.g. a different letter case on a case-insensitive filesystem) reaches them;
 * traversals skip them.
 *
 * @example
 * ```ts
 * import { withSandbox } from "./common.ts";
 * // await withSandbox(resolved, env, (box) => box.openDir([], "."));
 * ```
 */
export async function withSandbox<T>(
  r: ResolvedPath,
  env: BuiltinEnv,
  fn: (box: Sandbox) => T | Promise<T>,
): Promise<T> {
  const box = Sandbox.open(r.rootDir, r.path, { exact: true, pinned: env.pinnedRoot });
  try {
    box.deny(deniedPaths(env, r.rootDir));
    // Entries sort as they are shown: a name holding a protected value by its redaction.
    const protect = env.protect;
    if (protect?.active) box.sortBy((name) => protect.text(name));
    return await fn(box);
  } finally {
    box.close();
  }
}

/**
 * Physical paths of the descendants the eval does not admit, and the state directory when
 * it lies below `root` (by realpath; usually it does not, and costs nothing then).
 */
function deniedPaths(env: BuiltinEnv, root: string): string[] {
  const out: string[] = [];
  for (const d of env.descendants.values()) if (!d.admitted) out.push(d.view.physicalPath);
  if (env.stateDir !== undefined && isInsideRoots(realStateDir(env.stateDir), [root])) {
    out.push(...statePaths(env.stateDir));
  }
  return out;
}

const realStateDirs = new Map<string, string>();

/** The state directory's realpath (of its nearest existing ancestor while missing). */
function realStateDir(stateDir: string): string {
  const known = realStateDirs.get(stateDir);
  if (known !== undefined) return known;
  let p = path.resolve(stateDir);
  const rest: string[] = [];
  for (;;) {
    try {
      // Kept even while the folder is missing: it is later made below the same parent
      // (and a link swapped in there is refused by Registry.open's state-dir check).
      const real = path.join(fs.realpathSync(p), ...rest.reverse());
      realStateDirs.set(stateDir, real);
      return real;
    } catch {
      const parent = path.dirname(p);
      if (parent === p) return path.resolve(stateDir);
      rest.push(path.basename(p));
      p = parent;
    }
  }
}

/**
 * The state directory's physical path, created (mode 0700) when missing so that it is
 * refused by identity from the first call on: a folder created later (by a concurrent call,
 * or by a write tool under its name) would otherwise escape the denial.
 *
 * @example
 * ```ts
 * import { statePaths } from "./common.ts";
 * statePaths("/tmp/toolhost-state"); // ["/tmp/toolhost-state"] (now existing)
 * ```
 */
export function statePaths(stateDir: string): string[] {
  const ready = readyStateDirs.get(stateDir);
  if (ready !== undefined && fs.existsSync(ready)) return [ready]; // one cheap check per call
  try {
    makeDirsSync(stateDir, 0o700);
    const real = fs.realpathSync(stateDir);
    readyStateDirs.set(stateDir, real);
    return [real];
  } catch {
    return [stateDir]; // deny() ignores a path it cannot stat
  }
}

/** State directories made (or found) by {@link statePaths}, by configured path. */
const readyStateDirs = new Map<string, string>();

/**
 * A predicate over logical paths (from the declaring Artifact) that refuses descendant
 * Artifacts the eval does not admit; traversals skip them.
 *
 * @example
 * ```ts
 * import { admitter } from "./common.ts";
 * // const admit = admitter(env); admit("rules") === false when `rules` is not admitted
 * ```
 */
export function admitter(env: BuiltinEnv): ((logical: string) => boolean) | undefined {
  let any = false;
  for (const d of env.descendants.values()) if (!d.admitted) any = true;
  if (!any) return undefined;
  return (logical) => env.descendants.get(logical)?.admitted !== false;
}

/**
 * Throw a cancellation error when the call's signal has fired.
 *
 * @example
 * ```ts
 * import { checkSignal } from "./common.ts";
 * checkSignal(undefined); // no-op
 * ```
 */
export function checkSignal(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CancelledError();
}

/**
 * Read an open file from its start, at most `max + 1` bytes, so a file that grew past a
 * limit after it was measured is still noticed (`length > max`).
 *
 * @example
 * ```ts
 * import fs from "node:fs";
 * import { readBounded } from "./common.ts";
 * const fd = fs.openSync("/etc/hostname", "r");
 * readBounded(fd, 4096).length <= 4097; // true
 * fs.closeSync(fd);
 * ```
 */
export function readBounded(fd: number, max: number): Buffer {
  const buf = Buffer.allocUnsafe(max + 1);
  let n = 0;
  while (n < buf.length) {
    const r = fs.readSync(fd, buf, n, buf.length - n, n);
    if (r === 0) break;
    n += r;
  }
  return buf.subarray(0, n);
}

/**
 * A string argument, or undefined.
 *
 * @example
 * ```ts
 * import { str } from "./common.ts";
 * str("a"); // "a"
 * str(1); // undefined
 * ```
 */
export function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/**
 * An integer argument, or undefined.
 *
 * @example
 * ```ts
 * import { optInt } from "./common.ts";
 * optInt(3); // 3
 * optInt(1.5); // undefined
 * ```
 */
export function optInt(v: unknown): number | undefined {
  return typeof v === "number" && Number.isInteger(v) ? v : undefined;
}
