/**
 * The odek artifact-ref validator: parse odek.tool-result/v1 envelopes, validate
 * odek.artifact-ref/v1 references fail-closed against artifact roots, render them for a
 * model without paths or content, and clean up a session's artifact directory.
 *
 * @example
 * ```ts
 * import { parseEnvelope, renderEnvelope, validateEnvelope } from "./mod.ts";
 * const env = parseEnvelope('{"schema":"odek.tool-result/v1","text":"done","artifacts":[]}');
 * if (env) {
 *   const found = await validateEnvelope(env, ["/tmp"]);
 *   console.log(renderEnvelope(env, { sizes: found.map((f) => f.size) }));
 * }
 * ```
 *
 * @module
 */

export {
  MAX_ARTIFACT_BYTES,
  MAX_ARTIFACTS_PER_ENVELOPE,
  SCHEMA_ARTIFACT_REF,
  SCHEMA_TOOL_RESULT,
} from "./constants.ts";
export type { ArtifactRef, Envelope, ValidatedArtifact } from "./types.ts";
export { ArtifactRefError, InvalidEnvelopeError } from "./errors.ts";
export type { ArtifactRefRule, EnvelopeRule } from "./errors.ts";
export { parseEnvelope } from "./envelope.ts";
export { inspectArtifactRef, validateArtifactRef, validateEnvelope } from "./validate.ts";
export { ARTIFACT_LINE_PREFIX, countRendered, flattenLine, renderEnvelope } from "./render.ts";
export type { RenderOptions } from "./render.ts";
export { removeSessionSubtree, SESSION_ID_PATTERN } from "./session_subtree.ts";
export { confirmOpenedPath, openSameFile, readExactly, SAFE_OPEN_FLAGS } from "./hash.ts";
export type { FileIdentity } from "./hash.ts";
