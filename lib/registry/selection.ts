/**
 * Which tools a selection publishes: an eval (its audience and scope), or an Artifact
 * with an audience (that Artifact and its children). Pure: no processes, no files.
 *
 * @module
 */

import { builtinInputSchema } from "../builtins/specs.ts";
import { InvocationError } from "../errors/errors.ts";
import { renderDescription } from "../workspace/description.ts";
import { publishedName } from "../workspace/names.ts";
import { suggest } from "../workspace/problems.ts";
import { artifactScope, evalScope } from "../workspace/scope.ts";
import type { Audience, ToolDecl, Workspace } from "../workspace/types.ts";
import { showPath } from "../paths/show_path.ts";

/** A tool as a selection publishes it. */
export interface RegisteredTool {
  /** Published name `<tool>_<artifactId>`. */
  name: string;
  /** Short declared name. */
  shortName: string;
  /** Rendered description. */
  description: string;
  /** Input JSON Schema. */
  inputSchema: Record<string, unknown>;
  /** Declaring Artifact. */
  artifactId: string;
  /** The declaration. */
  decl: ToolDecl;
}

/** A resolved selection. */
export interface Selection {
  /** Eval id, when selected by eval. */
  evalId?: string;
  /** Audience. */
  audience: Audience;
  /** Admitted Artifact ids. */
  scope: string[];
  /** Published tools in scope order, then declaration order. */
  tools: RegisteredTool[];
}

/** How to select. */
export type SelectionSpec = { eval: string } | { artifact: string; audience: Audience };

/**
 * The eval a mistyped `name` most likely means: a near spelling, or — for a bare name
 * such as `agent`, which misses the `ARTIFACT/` part — the one eval of that name.
 *
 * @example
 * ```ts
 * import { suggestEval } from "./selection.ts";
 * suggestEval("agent", ["tools/agent", "tools/people"]); // "tools/agent"
 * ```
 */
export function suggestEval(name: string, evalIds: string[]): string | undefined {
  const near = suggest(name, evalIds);
  if (near !== undefined || name.includes("/")) return near;
  const named = evalIds.filter((id) => id.slice(id.indexOf("/") + 1) === name);
  return named.length === 1 ? named[0] : undefined;
}

/**
 * Resolve a selection or throw {@link InvocationError} (unknown eval/Artifact, with a
 * did-you-mean hint).
 *
 * @example
 * ```ts
 * import { selectTools } from "./selection.ts";
 * // const sel = selectTools(ws, { eval: "app/review" });
 * ```
 */
export function selectTools(ws: Workspace, spec: SelectionSpec): Selection {
  if ("eval" in spec) {
    if (typeof spec.eval !== "string") throw missingEval(ws);
    const ev = ws.evals.get(spec.eval);
    if (!ev) {
      const hint = suggestEval(spec.eval, [...ws.evals.keys()]);
      throw new InvocationError(
        `no eval \`${spec.eval}\` in this workspace${
          hint ? ` (did you mean \`${hint}\`?)` : ""
        }; evals: ${[...ws.evals.keys()].join(", ") || "(none)"}`,
        "UNKNOWN_EVAL",
      );
    }
    const scope = evalScope(ws, ev.id);
    return { evalId: ev.id, audience: ev.audience, scope, tools: toolsOf(ws, scope, ev.audience) };
  }
  if (!ws.artifacts.has(spec.artifact)) {
    const hint = suggest(spec.artifact, [...ws.artifacts.keys()]);
    throw new InvocationError(
      `no Artifact \`${spec.artifact}\`${hint ? ` (did you mean \`${hint}\`?)` : ""}`,
    );
  }
  const scope = artifactScope(ws, spec.artifact, []);
  return { audience: spec.audience, scope, tools: toolsOf(ws, scope, spec.audience) };
}

/** A caller (a JavaScript one: TypeScript would not compile it) that named no eval. */
function missingEval(ws: Workspace): InvocationError {
  const ids = [...ws.evals.keys()];
  return new InvocationError(
    `name the eval to open as a string, e.g. Registry.open(ws, "${ids[0] ?? "app/review"}"); ` +
      `evals: ${ids.join(", ") || "(none)"}`,
    "UNKNOWN_EVAL",
  );
}

function toolsOf(ws: Workspace, scope: string[], audience: Audience): RegisteredTool[] {
  const out: RegisteredTool[] = [];
  for (const id of scope) {
    const a = ws.artifacts.get(id)!;
    const decls = audience === "agent" ? a.agentTools : a.humanTools;
    for (const decl of Object.values(decls)) {
      const rendered = renderDescription(decl.description, id);
      out.push({
        name: publishedName(decl.name, id),
        shortName: decl.name,
        description: rendered.ok ? rendered.text : decl.description,
        inputSchema: decl.type === "builtin"
          ? decl.plugin?.inputSchema ?? builtinInputSchema(decl.builtin, decl.args)
          : decl.inputSchema,
        artifactId: id,
        decl,
      });
    }
  }
  return out;
}

/**
 * Find a tool by published name, or (with `allowShort`) by short name.
 *
 * @example
 * ```ts
 * import { findTool } from "./selection.ts";
 * // findTool(sel, "read_app", false)
 * ```
 */
export function findTool(sel: Selection, name: string, allowShort: boolean): RegisteredTool {
  const exact = sel.tools.find((t) => t.name === name);
  if (exact) return exact;
  if (allowShort) {
    const short = sel.tools.filter((t) => t.shortName === name);
    if (short.length === 1) return short[0];
    if (short.length > 1) {
      throw new InvocationError(
        `tool name ${showPath(name)} is ambiguous here; use one of ${
          short.map((t) => t.name).join(", ")
        }`,
        "UNKNOWN_TOOL",
      );
    }
  }
  throw new InvocationError(
    unknownToolMessage(name, sel.tools.map((t) => t.name), "this selection"),
    "UNKNOWN_TOOL",
  );
}

/** Most tool names an unknown-tool message lists. */
const LISTED_NAMES = 24;

/**
 * The message for an unknown tool `name` (quoted and escaped: it is the caller's value):
 * a close match when there is one, then the available names (at most 24).
 *
 * @example
 * ```ts
 * import { unknownToolMessage } from "./selection.ts";
 * unknownToolMessage("raed_app", ["read_app", "list_app"], "this eval");
 * // "no tool `raed_app` in this eval (did you mean `read_app`?); tools: read_app, list_app"
 * ```
 */
export function unknownToolMessage(name: string, names: readonly string[], where: string): string {
  const hint = suggest(name, [...names]);
  const listed = names.slice(0, LISTED_NAMES).join(", ") || "(none)";
  const more = names.length > LISTED_NAMES ? ` and ${names.length - LISTED_NAMES} more` : "";
  return `no tool ${showPath(name)} in ${where}${hint ? ` (did you mean \`${hint}\`?)` : ""}; ` +
    `tools: ${listed}${more}`;
}
