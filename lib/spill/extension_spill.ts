/**
 * Spill for extension results (`overflow = "artifact"`, the default for extensions): a
 * text block beyond 64 KiB is written whole into the registry's artifact directory and
 * replaced by a preview plus the validated artifact reference.
 *
 * @module
 */

import { rm } from "node:fs/promises";
import { makeUnlinkedDirsSync } from "../paths/unlinked_dirs.ts";
import { claimOwnedDir } from "../process/call_dirs.ts";
import type { ArtifactStore } from "../artifacts/store.ts";
import { capText } from "../text/text_clean.ts";
import { LIMITS } from "../results/types.ts";
import { spilledText, spillName, writeSpillText } from "./spill_result.ts";

/** The registry's artifact directory and store. */
export interface SpillHomeDir {
  /** Artifact directory (created on first use, mode 0700). */
  dir: string;
  /** Artifact store `get_artifact_field` reads. */
  store: ArtifactStore;
}

/**
 * The `spillText` hook of `fromMcpResult` for one published tool. When the file cannot
 * be written or validated the text is cut at 64 KiB instead (with the usual marker).
 *
 * @example
 * ```ts
 * import { extensionSpill } from "./extension_spill.ts";
 * // fromMcpResult(raw, { spillText: extensionSpill({ dir, store }, "echo_fx") });
 * ```
 */
export function extensionSpill(
  home: SpillHomeDir,
  tool: string,
): (text: string) => Promise<string> {
  return async (whole) => {
    // Redacted before it is written or cut: the file and the preview never hold a value.
    const text = home.store.protector?.text(whole) ?? whole;
    const { id, path } = spillName(home.dir, tool);
    try {
      makeUnlinkedDirsSync(home.dir, 2, 0o700); // `artifacts/<id>`: never a link
      claimOwnedDir(home.dir); // so that a sweep removes it should this process be killed
      const file = await writeSpillText(path, text);
      return await spilledText({ dir: home.dir, store: home.store, tool }, id, file, text);
    } catch {
      await rm(path, { force: true }).catch(() => {});
      return capText(text, LIMITS.maxTextBytes);
    }
  };
}
