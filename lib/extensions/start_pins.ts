/**
 * Without a lock, an extension's declared `execution_paths` are still pins while its host
 * lives: hashed when the server first starts, and hashed again before every restart (a
 * crash, a lazy restart), so a long-lived `serve` never starts code that changed under
 * it — the same promise a command tool's pins keep between calls. With a lock, the lock's
 * pins are checked instead (`ExtensionLockCheck.serverDrift`).
 *
 * @module
 */

import { PreparationFailed } from "../errors/errors.ts";
import { showPath } from "../paths/show_path.ts";
import { changedPin, extensionPathPins, type PinCache } from "../lock/extension_pins.ts";
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
        first = await extensionPathPins(root, decl, { cache });
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
