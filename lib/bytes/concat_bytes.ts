/**
 * Joining byte chunks into one array. `Uint8Array.prototype.set` into one array of the
 * total size, not `Buffer.concat`: under Deno the latter copies byte by byte (the redactor
 * splices megabytes this way), and it hands back a `Buffer`, not a plain `Uint8Array`.
 *
 * @module
 */

/**
 * The bytes of `chunks`, in order, in one fresh array (also for no chunk or one).
 *
 * With `shareSingle`, a lone chunk is returned itself instead of a copy: only for a
 * caller that owns the chunk and never writes to or reuses its memory afterwards (a view
 * of a pooled or reused buffer must be copied).
 *
 * @example
 * ```ts
 * import { concatBytes } from "./concat_bytes.ts";
 * const joined = concatBytes([new Uint8Array([1, 2]), new Uint8Array([3])]);
 * console.log([...joined]); // [1, 2, 3]
 * const only = new Uint8Array([4]);
 * console.log(concatBytes([only]) === only); // false: a copy
 * console.log(concatBytes([only], { shareSingle: true }) === only); // true
 * ```
 */
export function concatBytes(
  chunks: readonly Uint8Array[],
  options: { shareSingle?: boolean } = {},
): Uint8Array {
  if (options.shareSingle && chunks.length === 1) return chunks[0];
  let size = 0;
  for (const c of chunks) size += c.byteLength;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
