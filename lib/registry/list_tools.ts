/**
 * The tools a selection lists, before anything is opened or run.
 *
 * @module
 */

import { ARTIFACT_TOOL_SPECS } from "../artifacts/specs.ts";
import type { ToolListing } from "../results/tool_listing.ts";
import type { Selection } from "./selection.ts";

/**
 * The listing of a selection: its declared tools, then (agent audience) the two artifact
 * tools every agent eval has. Pure: creates nothing, runs nothing.
 *
 * @example
 * ```ts
 * import { listTools } from "./list_tools.ts";
 * // listTools(selectTools(ws, { eval: "app/review" })).map((t) => t.name)
 * ```
 */
export function listTools(sel: Selection): ToolListing[] {
  const declared = sel.tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema,
  }));
  if (sel.audience !== "agent") return declared;
  const extra = ARTIFACT_TOOL_SPECS.map(({ name, description, inputSchema }) => ({
    name,
    description,
    inputSchema,
  }));
  return [...declared, ...extra];
}
