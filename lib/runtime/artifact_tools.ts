/**
 * `get_artifact_field` / `search_artifact_content` through the registry: the same
 * bounded JSON Schema admission as every tool, then the conversation store.
 *
 * @module
 */

import { callArtifactTool } from "../artifacts/call_tool.ts";
import { ARTIFACT_TOOL_SPECS } from "../artifacts/specs.ts";
import type { ArtifactStore } from "../artifacts/store.ts";
import { admitArgs, InvalidArguments } from "../schema/admit_args.ts";
import { type CompiledSchema, compileSchema } from "../schema/compile_schema.ts";
import { errorResult, type ToolResult } from "../results/types.ts";

const schemas = new Map<string, CompiledSchema>();

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
  let compiled = schemas.get(name);
  if (!compiled) {
    const spec = ARTIFACT_TOOL_SPECS.find((s) => s.name === name)!;
    compiled = compileSchema(spec.inputSchema);
    schemas.set(name, compiled);
  }
  try {
    return callArtifactTool(name, admitArgs(args, compiled), store);
  } catch (e) {
    if (e instanceof InvalidArguments) return Promise.resolve(errorResult(e.message));
    throw e;
  }
}
