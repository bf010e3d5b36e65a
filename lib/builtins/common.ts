/**
 * Shared pieces of the in-process built-ins: ownership metadata, error conversion,
 * sandbox lifetimes and descendant admission.
 *
 * @module
 */

import fs from "node:fs";
import { Buffer } from "node:buffer";
import { CancelledError } from "../paths/walk.ts";
import { ToolhostError } from "../errors/errors.ts";
import { errorResult, type ToolResult } from "../results/types.ts";
import type { BuiltinEnv } from "./context.ts";
import { Sandbox } from "../paths/sandbox.ts";
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
 * Artifacts the eval does not admit are also refused by physical identity, so no other
 * name (e.g. a different letter case on a case-insensitive filesystem) reaches them.
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
  const box = Sandbox.open(r.rootDir, r.path, { exact: true });
  try {
    box.deny(deniedPaths(env));
    return await fn(box);
  } finally {
    box.close();
  }
}

/** Physical paths of the descendants the eval does not admit. */
function deniedPaths(env: BuiltinEnv): string[] {
  const out: string[] = [];
  for (const d of env.descendants.values()) if (!d.admitted) out.push(d.view.physicalPath);
  return out;
}

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
