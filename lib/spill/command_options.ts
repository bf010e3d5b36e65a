/**
 * The trust options of one command call: its declared resource limits and,
 * for a plain tool with `overflow = "artifact"`, where oversized stdout is spilled.
 *
 * @module
 */

import type { ArtifactStore } from "../artifacts/store.ts";
import type { ResourceLimits } from "../limits/types.ts";
import { publishedName } from "../workspace/names.ts";
import type { CommandToolDecl } from "../workspace/types.ts";
import type { SpillTarget } from "./spill_result.ts";

/** What a registry offers for spilling: its artifact directory and store. */
export interface SpillHome {
  /** The registry's artifact directory. */
  readonly artifactDir: string;
  /** The registry's artifact store. */
  readonly artifacts: ArtifactStore;
}

/**
 * `{ limits, spill }` to spread into a `CommandSpec`.
 *
 * @example
 * ```ts
 * import { trustOptions } from "./command_options.ts";
 * // const spec = { ...base, ...trustOptions(reg, artifact.id, decl) };
 * ```
 */
export function trustOptions(
  home: SpillHome,
  artifactId: string,
  decl: CommandToolDecl,
): { limits?: ResourceLimits; spill?: SpillTarget } {
  const out: { limits?: ResourceLimits; spill?: SpillTarget } = {};
  if (decl.limits) out.limits = decl.limits;
  if (decl.protocol === "plain" && decl.overflow === "artifact") {
    const tool = publishedName(decl.name, artifactId);
    out.spill = { dir: home.artifactDir, store: home.artifacts, tool };
  }
  return out;
}
