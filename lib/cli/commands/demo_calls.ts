/**
 * Sample calls shown by the demo (filled in as the runtime grows).
 *
 * @module
 */

import type { Workspace } from "../../workspace/types.ts";
import type { CliIo } from "../exit.ts";

/**
 * Run the demo's sample calls; returns whether they all behaved as expected.
 *
 * @example
 * ```ts
 * import { demoCalls } from "./demo_calls.ts";
 * // await demoCalls(ws, stateDir, processIo);
 * ```
 */
export function demoCalls(_ws: Workspace, _stateDir: string, _io: CliIo): Promise<boolean> {
  return Promise.resolve(true);
}
