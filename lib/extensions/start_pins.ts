/**
 * Without a lock, an extension's declared `execution_paths` are still pins while its host
 * lives: hashed when the server first starts, and hashed again before every restart (a
 * crash, a lazy restart), so a long-lived `serve` never starts code that changed under
 * it — the same promise a command tool's pins keep between calls. A folder's pin covers a
 * symlink by its target text only, so, as `toolhost lock` does, the first start is refused
 * while a link in the paths leads outside them (lib/pins/link_scope.ts, on the snapshots
 * those pins were computed from): what it leads to could change under an unchanged pin.
 * With a lock, the lock's pins are checked instead (`ExtensionLockCheck.serverDrift`;
 * locking refused such links).
 *
 * @module
 */

import { PreparationFailed } from "../errors/errors.ts";
import { showPath } from "../paths/show_path.ts";
import { changedPin, extensionPathPins, type PinCache } from "../lock/extension_pins.ts";
import { type LeavingLink, leavingLink } from "../pins/link_scope.ts";
import type { PathPins } from "../lock/lock_file.ts";
import type { ExtensionDecl } from "../workspace/parse_extensions.ts";

/**
 * A check to run before every start of the server (`ExtensionServer`'s `beforeStart`):
 * undefined (may start) or a value-free sentence naming the extension and the path that
 * changed or cannot be pinned. Undefined when the extension declares no execution paths.
 *
 * @example
 * ```ts
 * import { startPinCheck } from "./start_pins.ts";
 * const check = startPinCheck(".", { name: "fx", executionPaths: ["lib/pins"] });
 * await check?.(); // undefined: pinned now
 * await check?.(); // undefined: unchanged
 * ```
 */
export function startPinCheck(
  root: string,
  decl: Pick<ExtensionDecl, "name" | "executionPaths">,
): (() => Promise<string | undefined>) | undefined {
  if ((decl.executionPaths ?? []).length === 0) return undefined;
  const cache: PinCache = new Map();
  let first: PathPins | undefined;
  const name = showPath(decl.name);
  return async () => {
    if (first === undefined) {
      try {
        const pins = await extensionPathPins(root, decl, { cache });
        // The links as those pins hashed them (their snapshots), never read a second time.
        const snaps = (decl.executionPaths ?? []).map((p) => cache.get(p)!);
        const leaving = leavingLink(root, snaps);
        if (leaving !== undefined) return leavingRefusal(name, leaving);
        first = pins;
        return undefined;
      } catch (e) {
        if (!(e instanceof PreparationFailed)) throw e;
        return `The extension ${name} was not started: ${e.message}.`;
      }
    }
    const now = await extensionPathPins(root, decl, { cache, onFailure: "record" });
    const path = changedPin(first, now);
    if (path === undefined) return undefined;
    return `The extension ${name} was not started: its execution path ${showPath(path)} ` +
      "changed since the server was first started (the path is relative to the workspace " +
      "root), so it no longer matches its pin. Review the change, then reopen the registry " +
      "(run the command again, or restart `toolhost serve`) to pin it anew.";
  };
}

function leavingRefusal(name: string, leaving: LeavingLink): string {
  return `The extension ${name} was not started: its execution path ` +
    `${showPath(leaving.declared)} holds a symlink ${showPath(leaving.link)} that leads ` +
    "outside its execution paths (paths are relative to the workspace root); a folder's pin " +
    "covers a link by its target text only, so what it leads to would run unpinned. Replace " +
    "the link with what it leads to, or declare the folder it leads into in execution_paths.";
}
