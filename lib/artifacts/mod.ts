/**
 * A conversation's artifact store and the two artifact tools, `get_artifact_field` and
 * `search_artifact_content`, which read it on the model's request. Artifacts enter only
 * after odek validation; the model never sees a URI or a path.
 *
 * @example
 * ```ts
 * import { ArtifactStore, ARTIFACT_TOOL_SPECS, callArtifactTool } from "./mod.ts";
 * const store = new ArtifactStore();
 * console.log(ARTIFACT_TOOL_SPECS.map((t) => t.name));
 * const res = await callArtifactTool("search_artifact_content", { query: "total" }, store);
 * ```
 *
 * @module
 */

export { ArtifactStore, MAX_STORED_ARTIFACTS } from "./store.ts";
export type { ArtifactInfo, ArtifactSource, ContentGuard, StoredArtifact } from "./types.ts";
export {
  ARTIFACT_TOOL_SPECS,
  DEFAULT_CONTEXT_CHARS,
  DEFAULT_MAX_CHARS,
  DEFAULT_MAX_RESULTS,
  GET_ARTIFACT_FIELD,
  GET_ARTIFACT_FIELD_SCHEMA,
  isArtifactToolName,
  SEARCH_ARTIFACT_CONTENT,
  SEARCH_ARTIFACT_CONTENT_SCHEMA,
} from "./specs.ts";
export type { ArtifactToolSpec } from "./specs.ts";
export { callArtifactTool } from "./call_tool.ts";
export { getArtifactField } from "./get_field.ts";
export { MAX_SEARCH_BYTES, searchArtifactContent } from "./search.ts";
export type { SearchMatch } from "./search.ts";
export { ARTIFACT_FIELDS, canonicalFieldName } from "./fields.ts";
export type { ArtifactField } from "./fields.ts";
export { ContentUnavailable, readArtifactText } from "./content.ts";
export type { ContentProblem } from "./content.ts";
export { ArtifactToolFailure } from "./exceptions.ts";
export type { ArtifactToolException } from "./exceptions.ts";
