/**
 * Spill-to-artifact: output beyond the 64 KiB text cap written into the
 * registry's artifact directory, previewed, and referenced by a validated
 * `odek.artifact-ref/v1` that `get_artifact_field` pages through.
 *
 * @example
 * ```ts
 * import { SPILL_PREVIEW_BYTES } from "./mod.ts";
 * console.log(SPILL_PREVIEW_BYTES); // 8192
 * ```
 *
 * @module
 */

export { SPILL_PREVIEW_BYTES } from "./spill_result.ts";
export type { SpillTarget } from "./spill_result.ts";
export { StreamingCleaner } from "../text/clean_stream.ts";
