/**
 * Budgets for execution-path pinning and their defaults.
 *
 * @module
 */

/** Default byte budget of one pinned path: 1 GiB of file bytes (1,073,741,824). */
export const DEFAULT_PIN_MAX_BYTES = 1024 * 1024 * 1024;

/** Default number of file/symlink entries one pinned path may retain: 10,000. */
export const DEFAULT_PIN_MAX_ENTRIES = 10_000;

/** Options of {@linkcode pinPath}. */
export interface PinOptions {
  /**
   * Most file bytes a pinned path may contain in total (a file's size, or the sum of the
   * regular files' sizes under a directory). More fails.
   *
   * @default {1073741824} (1 GiB)
   */
  maxBytes?: number;
  /**
   * Most file/symlink entries a pinned directory may retain. Once this many are retained,
   * encountering any further entry (a directory included) fails. Directories never count.
   *
   * @default {10000}
   */
  maxEntries?: number;
}

/** {@linkcode PinOptions} with every default applied. */
export interface ResolvedPinOptions {
  /** See {@linkcode PinOptions.maxBytes}. */
  maxBytes: number;
  /** See {@linkcode PinOptions.maxEntries}. */
  maxEntries: number;
}

/**
 * Apply defaults and check that the budgets are non-negative safe integers.
 *
 * @example
 * ```ts
 * import { resolvePinOptions } from "./options.ts";
 * resolvePinOptions({}).maxBytes; // 1073741824
 * ```
 */
export function resolvePinOptions(opts: PinOptions = {}): ResolvedPinOptions {
  const maxBytes = opts.maxBytes ?? DEFAULT_PIN_MAX_BYTES;
  const maxEntries = opts.maxEntries ?? DEFAULT_PIN_MAX_ENTRIES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new RangeError("maxBytes must be a non-negative safe integer");
  }
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
    throw new RangeError("maxEntries must be a positive safe integer");
  }
  return { maxBytes, maxEntries };
}
