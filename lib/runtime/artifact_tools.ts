/**
 * `get_artifact_field` / `search_artifact_content` through the registry: the same
 * bounded JSON Schema admission as every tool, then the conversation store.
 *
 * @module
 */

import { callArtifactTool } from "../artifacts/call_tool.ts";
import { ARTIFACT_TOOL_SPECS } from "../artifacts/specs.ts";
import type { ArtifactStore } from "../artifacts/store.ts";
import { admitOrRefuse } from "../schema/admit_args.ts";
import { compileSchema } from "../schema/compile_schema.ts";
import type { ToolResult } from "../results/types.ts";

/**
 * Admit the arguments and call an artifact tool against a store.
 *
 * @example
 * ```ts
 * import { ArtifactStore } from "../artifacts/store.ts";
 * import { callArtifactToolAdmitted } from "./artifact_tools.ts";
 * await callArtifactToolAdmitted("search_artifact_content", { query: "x" }, new ArtifactStore());
 * ```
 */
export function callArtifactToolAdmitted(
  name: string,
  args: unknown,
  store: ArtifactStore,
): Promise<ToolResult> {
  const spec = ARTIFACT_TOOL_SPECS.find((s) => s.name === name)!;
  const admission = admitOrRefuse(args, compileSchema(spec.inputSchema));
  if (!admission.ok) return Promise.resolve(admission.result);
  return callArtifactTool(name, admission.args, store);
}
