/**
 * Constants of the odek extension contract: schema names and hard ceilings.
 *
 * @module
 */

/**
 * Schema name of the odek tool-result envelope: a JSON text content item with a
 * compact model-facing `text` plus out-of-band artifact references.
 *
 * @example
 * ```ts
 * import { SCHEMA_TOOL_RESULT } from "./constants.ts";
 * JSON.stringify({ schema: SCHEMA_TOOL_RESULT, text: "done", artifacts: [] });
 * ```
 */
export const SCHEMA_TOOL_RESULT = "odek.tool-result/v1";

/**
 * Schema name of one artifact reference inside a tool-result envelope.
 *
 * @example
 * ```ts
 * import { SCHEMA_ARTIFACT_REF } from "./constants.ts";
 * const ref = { schema: SCHEMA_ARTIFACT_REF, id: "r1", uri: "file:///tmp/out/r1.json", media_type: "application/json" };
 * ```
 */
export const SCHEMA_ARTIFACT_REF = "odek.artifact-ref/v1";

/**
 * Ceiling on the size of one artifact file (64 MiB). Enforced from `stat` before any
 * hashing, so a ref carrying `sha256` without `size_bytes` cannot force an unbounded
 * streaming hash.
 *
 * @example
 * ```ts
 * import { MAX_ARTIFACT_BYTES } from "./constants.ts";
 * console.log(MAX_ARTIFACT_BYTES === 64 * 1024 * 1024); // true
 * ```
 */
export const MAX_ARTIFACT_BYTES: number = 64 * 1024 * 1024;

/**
 * Ceiling on the number of artifact refs in one envelope. Every ref becomes a rendered
 * metadata line appended after the text, so the count itself must be bounded.
 *
 * @example
 * ```ts
 * import { MAX_ARTIFACTS_PER_ENVELOPE } from "./constants.ts";
 * console.log(MAX_ARTIFACTS_PER_ENVELOPE); // 64
 * ```
 */
export const MAX_ARTIFACTS_PER_ENVELOPE = 64;
