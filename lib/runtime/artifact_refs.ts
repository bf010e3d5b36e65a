/**
 * odek envelopes in tool results: a text block that is an `odek.tool-result/v1` envelope
 * is validated fail-closed against the tool's artifact roots and replaced by its render
 * (compact text plus one metadata line per artifact — never a path); validated artifacts
 * join the registry's conversation store.
 *
 * @module
 */

import { join } from "node:path";
import type { ArtifactStore } from "../artifacts/store.ts";
import { ArtifactRefError, InvalidEnvelopeError } from "../odek/errors.ts";
import { parseEnvelope } from "../odek/envelope.ts";
import { renderEnvelope } from "../odek/render.ts";
import { validateEnvelope } from "../odek/validate.ts";
import { errorResult, type ToolResult } from "../results/types.ts";
import type { Artifact, CommandToolDecl, Workspace } from "../workspace/types.ts";
import { leavesWorkspace } from "../workspace/program_path.ts";

/**
 * Workspace-relative artifact roots as absolute folders, checked at the time of use: a
 * root that leads outside the workspace through a symlink (swapped in after load, say)
 * admits nothing.
 *
 * @example
 * ```ts
 * import { workspaceRoots } from "./artifact_refs.ts";
 * workspaceRoots("/ws", ["out"]); // ["/ws/out"] (unless /ws/out links elsewhere)
 * ```
 */
export function workspaceRoots(root: string, rel: readonly string[]): string[] {
  return rel.filter((r) => !leavesWorkspace(root, r)).map((r) => join(root, r));
}

/**
 * The artifact roots of a command tool: its own `artifact_roots`, its Artifact's, and the
 * registry's artifact directory (always a root).
 *
 * @example
 * ```ts
 * import { artifactRootsFor } from "./artifact_refs.ts";
 * // artifactRootsFor(ws, artifact, decl, "/state/artifacts/ab12")
 * ```
 */
export function artifactRootsFor(
  ws: Workspace,
  artifact: Artifact,
  decl: CommandToolDecl,
  registryDir: string,
): string[] {
  const rel = [...decl.artifactRoots, ...artifact.artifactRoots];
  return [...new Set([...workspaceRoots(ws.root, rel), registryDir])];
}

/**
 * Replace every envelope text block of a successful result by its validated render.
 * One invalid ref fails the whole result, naming the block, the ref index and the rule.
 *
 * @example
 * ```ts
 * import { renderEnvelopes } from "./artifact_refs.ts";
 * // const out = await renderEnvelopes(result, roots, reg.artifacts);
 * ```
 */
export async function renderEnvelopes(
  result: ToolResult,
  roots: readonly string[] | (() => readonly string[]),
  store: ArtifactStore,
): Promise<ToolResult> {
  // Roots cost a realpath each: resolved only once a text really is an envelope.
  const rootsNow = typeof roots === "function" ? roots : () => roots;
  // An error result's text is checked too: an envelope is never passed on unvalidated.
  const content = [...result.content];
  for (let i = 0; i < content.length; i++) {
    const block = content[i];
    if (block.type !== "text") continue;
    try {
      const env = parseEnvelope(block.text);
      if (env === null) continue;
      const validated = await validateEnvelope(env, rootsNow());
      // Rendered redacted: the render clips fields, which must never leave part of a value.
      const p = store.protector;
      const shown = p?.active ? p.json(env) as typeof env : env;
      content[i] = {
        type: "text",
        text: renderEnvelope(shown, {
          sizes: validated.map((v) => v.size),
          // And as shown: flattening can form a value the fields only held split.
          ...(p?.active ? { redact: (s: string) => p.text(s) } : {}),
        }),
      };
      env.artifacts.forEach((ref, j) => store.add(ref, validated[j]));
    } catch (e) {
      if (e instanceof ArtifactRefError || e instanceof InvalidEnvelopeError) {
        return errorResult(`The tool's artifact envelope in block ${i} was rejected: ${e.message}`);
      }
      throw e;
    }
  }
  return { content, isError: result.isError };
}
