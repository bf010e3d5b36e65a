/**
 * Handing a call to a warm sandbox (a pre-spawned, single-use group whose waiter reads its
 * call line from fd 4, warm_script.ts): the same steps, in the same order, as a cold
 * spawn's after its `spawn` — output readers attached, `onSpawn` awaited (the group is
 * already journaled in its own call directories), then the input written and closed.
 *
 * @module
 */

import type { Readable } from "node:stream";
import { abandonGroup, type GroupHandle } from "./spawn_group.ts";
import type { ProcessRecord } from "./proc_identity.ts";
import type { CallDirs } from "./call_dirs.ts";

/** A pre-spawned group (spawned with `holdInput`) and the call line it is to run. */
export interface Spare {
  /** The group; `held` must be set. */
  handle: GroupHandle;
  /** The call line (`callPayload`). */
  payload: Uint8Array;
}

/** A spare taken by one call (lib/sandbox/warm_pool.ts): its call directories and the
 * handover. */
export interface TakenSpare {
  /** The spare's call directories; the call adopts them (and removes them after). */
  dirs: CallDirs;
  /**
   * The run's `spare` for this call, or undefined when the call cannot be handed to a
   * waiter (warm_script.ts `callPayload`, or a program or working directory a cold spawn
   * would refuse): the spare is then ended, and the call runs cold in these same
   * directories.
   */
  handover(
    command: string,
    args: readonly string[],
    env: Record<string, string>,
  ): Spare | undefined;
  /** Ends the spare if no handover happened; resolves once it is confirmed gone. */
  settle(): Promise<void>;
}

/** What {@linkcode adoptSpare} takes from the run's options. */
export interface AdoptOptions {
  /** Bytes written to the tool's stdin before it is closed. Default empty. */
  stdin?: string | Uint8Array;
  /** Called with the group's identity before the call is handed over. */
  onSpawn?: (record: ProcessRecord) => void | Promise<void>;
}

/**
 * Hand `spare` its call: `onStreams` gets the output streams, `onSpawn` the identity
 * (if it throws, the sandbox is ended and the error rethrown, as on a cold spawn), then
 * the call line and stdin are written and closed. Resolves to the group.
 *
 * @example
 * ```ts
 * import { adoptSpare } from "./warm_adopt.ts";
 * // const handle = await adoptSpare({ handle: spareHandle, payload }, { stdin: "" }, attach);
 * ```
 */
export async function adoptSpare(
  spare: Spare,
  opts: AdoptOptions,
  onStreams: (stdout: Readable, stderr: Readable) => void,
): Promise<GroupHandle> {
  const h = spare.handle;
  const held = h.held;
  if (held === undefined) throw new TypeError("the group was not spawned with holdInput");
  onStreams(h.stdout, h.stderr);
  if (opts.onSpawn !== undefined) {
    try {
      await opts.onSpawn(h.record);
    } catch (e) {
      await abandonGroup(h, [held.stdin, held.call]);
      throw e;
    }
  }
  // On stdin, the tool's input follows the line the waiter reads (a byte at a time).
  if (held.call === held.stdin) held.stdin.write(spare.payload);
  else held.call.end(spare.payload);
  const input = opts.stdin;
  if (input === undefined || input.length === 0) held.stdin.end();
  else held.stdin.end(input);
  return h;
}
