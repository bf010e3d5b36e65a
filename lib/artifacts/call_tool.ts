/**
 * Dispatch of the two artifact tools, with the registry the calling agent hands over.
 *
 * @module
 */

import { ToolhostError } from "../errors/errors.ts";
import { errorResult, type ToolResult } from "../results/types.ts";
import { getArtifactField } from "./get_field.ts";
import { searchArtifactContent } from "./search.ts";
import { GET_ARTIFACT_FIELD, SEARCH_ARTIFACT_CONTENT } from "./specs.ts";
import type { ArtifactSource } from "./types.ts";

/**
 * Call `get_artifact_field` or `search_artifact_content` over `source`, the artifacts of
 * the calling agent's own conversation. Without a source (outside a conversation) both
 * fail with `SystemException`. Any other name throws `UNKNOWN_TOOL`.
 *
 * @example
 * ```ts
 * import { callArtifactTool } from "./call_tool.ts";
 * const res = await callArtifactTool("search_artifact_content", { query: "x" }, undefined);
 * console.log(res.isError); // true: SystemException
 * ```
 */
export function callArtifactTool(
  name: string,
  args: unknown,
  source: ArtifactSource | undefined,
): Promise<ToolResult> {
  if (name !== GET_ARTIFACT_FIELD && name !== SEARCH_ARTIFACT_CONTENT) {
    throw new ToolhostError("UNKNOWN_TOOL", "not an artifact tool; call it through its registry");
  }
  if (source === undefined) {
    return Promise.resolve(errorResult(
      "SystemException: there is no artifact registry to read; artifact tools work only " +
        "inside a conversation (an open registry).",
    ));
  }
  return name === GET_ARTIFACT_FIELD
    ? getArtifactField(source, args)
    : searchArtifactContent(source, args);
}
