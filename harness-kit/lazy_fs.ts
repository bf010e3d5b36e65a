/**
 * `node:fs`, loaded only when a harness needs it. Importing `node:fs` costs a Deno process
 * about 11 ms of CPU at start-up (measured on the 2-core bench VM), more than the rest of
 * a harness's start; most tools and harnesses never touch the file system through
 * harness-kit (only path images and the socket file's cleanup do).
 *
 * @module
 */

import process from "node:process";

/** The `node:fs` module's type. */
export type NodeFs = typeof import("node:fs");

let loaded: NodeFs | undefined;

function builtin(): ((id: string) => unknown) | undefined {
  return (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
}

/**
 * `node:fs` now, synchronously, loading it on first use: through
 * `process.getBuiltinModule` (Deno 2, Node ≥ 20.16), else the module {@linkcode prepareFs}
 * loaded. Undefined only on an older Node before `prepareFs` ran.
 *
 * @example
 * ```ts
 * import { fsNow } from "./lazy_fs.ts";
 * console.log(typeof fsNow()?.statSync); // "function"
 * ```
 */
export function fsNow(): NodeFs | undefined {
  return loaded ??= builtin()?.("node:fs") as NodeFs | undefined;
}

/**
 * Make {@linkcode fsNow} answer: a no-op where `process.getBuiltinModule` exists (nothing
 * is loaded until `fsNow` is called), else `node:fs` is imported now.
 *
 * @example
 * ```ts
 * import { fsNow, prepareFs } from "./lazy_fs.ts";
 * await prepareFs();
 * console.log(fsNow() !== undefined); // true
 * ```
 */
export async function prepareFs(): Promise<void> {
  if (loaded === undefined && builtin() === undefined) loaded = await import("node:fs");
}

/**
 * `node:fs`, loading it if needed.
 *
 * @example
 * ```ts
 * import { loadFs } from "./lazy_fs.ts";
 * console.log((await loadFs()).existsSync("/"));
 * ```
 */
export async function loadFs(): Promise<NodeFs> {
  await prepareFs();
  return fsNow()!;
}
