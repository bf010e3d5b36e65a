/**
 * Folders a sandbox binds onto themselves so that no mount inside a writable path can be
 * moved away from its place. A mount covers a dentry, and Linux lets a process rename any
 * folder that is not itself a mount point — also one that *holds* a mount point, which
 * then moves along with it. So a tool that may write a folder holding a hidden path (the
 * state directory under a writable workspace root, an Artifact outside the scope under a
 * `sandbox_write` path) or a read-only one (another Artifact of the scope, a trust anchor)
 * could rename a folder between the two on the host: `mv .toolhost loot` moves the real
 * state directory out from under its hidden mount, and the next sandbox — which hides
 * the path, not the folder — shows `loot/state` with every other tool's artifacts and
 * calls; a read-only Artifact's folder moved aside lets the tool put its own in its
 * place. A mount point can be neither renamed nor removed, so each folder strictly
 * between a mount and the writable mount that holds it is bound onto itself (still
 * writable, as it was): nothing that holds a mount can move.
 *
 * @module
 */

/** One mount of a sandbox, as {@link mountPins} needs it. */
export interface PinnedMount {
  /** Where it is mounted (an absolute, normalized path). */
  path: string;
  /** Whether the process may write below it (a writable bind). */
  writable: boolean;
}

function isWithin(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith("/") ? parent : `${parent}/`);
}

function parentOf(path: string): string {
  const cut = path.lastIndexOf("/");
  return cut <= 0 ? "/" : path.slice(0, cut);
}

/**
 * The mount that decides what `path` is inside the sandbox: the deepest one holding it,
 * the later of two at the same path (mounted last, so it covers the other).
 */
function innermost(path: string, mounts: readonly PinnedMount[]): PinnedMount | undefined {
  let best: PinnedMount | undefined;
  for (const m of mounts) {
    if (!isWithin(path, m.path)) continue;
    if (best === undefined || m.path.length >= best.path.length) best = m;
  }
  return best;
}

/**
 * The folders to bind onto themselves (writable) so that no folder holding one of
 * `mounts` can be renamed: every folder strictly between a mount and the writable mount
 * it lies in, up to the first that is a mount point already or not writable. `mounts`
 * are in mount order (a later one at the same path covers an earlier one).
 *
 * @example
 * ```ts
 * import { mountPins } from "./mount_pins.ts";
 * mountPins([
 *   { path: "/ws", writable: true },
 *   { path: "/ws/.toolhost/state", writable: false },
 * ]); // ["/ws/.toolhost"]
 * ```
 */
export function mountPins(mounts: readonly PinnedMount[]): string[] {
  const pins = new Set<string>();
  for (const m of mounts) {
    for (let d = parentOf(m.path); d !== "/" && !pins.has(d); d = parentOf(d)) {
      const inner = innermost(d, mounts);
      // On the read-only root or in a read-only mount or hidden tmpfs: nothing renames d;
      // a mount point itself is pinned already (and its own holders are walked from it).
      if (inner === undefined || !inner.writable || inner.path === d) break;
      pins.add(d);
    }
  }
  return [...pins];
}
