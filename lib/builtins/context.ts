/**
 * What a built-in sees when it runs: the declaring Artifact and the Artifacts reachable
 * through its child folders that the eval admits. No physical path ever leaves a built-in.
 *
 * @module
 */

import type { ArtifactKind, Workspace } from "../workspace/types.ts";
import type { Protector } from "../redact/types.ts";
import type { PinnedRoot } from "../paths/sandbox.ts";

/** An Artifact as a built-in sees it. */
export interface ArtifactView {
  /** Artifact id. */
  id: string;
  /** Folder or file. */
  kind: ArtifactKind;
  /** Canonical absolute path (folder, or the file itself). */
  physicalPath: string;
  /** Its working directory (the folder, or the file's containing folder). */
  cwd: string;
}

/** Everything a built-in needs for one call. */
export interface BuiltinEnv {
  /** The Artifact that declared the tool. */
  declaring: ArtifactView;
  /**
   * Descendant Artifacts of the declaring folder Artifact, keyed by logical path
   * relative to it (e.g. `rules` → spec). `admitted` is false for descendants the eval
   * does not admit: a built-in must refuse to enter them.
   */
  descendants: Map<string, { view: ArtifactView; admitted: boolean }>;
  /** The workspace (graph prints its structure). */
  workspace: Workspace;
  /**
   * The registry's state directory (other calls' output, spill files, logs). Wherever it
   * lies, a built-in refuses it by physical identity like a non-admitted Artifact.
   */
  stateDir?: string;
  /** Cancellation. */
  signal?: AbortSignal;
  /**
   * The registry's protected values: tools that cut, window or search a file or a stream
   * redact the source first, so no cut leaves a part of a value and no search matches one.
   * Default none.
   */
  protect?: Protector;
  /**
   * The declaring folder, already opened and checked as an exact sandbox root while the
   * call's targets were checked, in the same synchronous step: the first sandbox there
   * takes it instead of opening the folder again. Default none.
   */
  pinnedRoot?: PinnedRoot;
}
