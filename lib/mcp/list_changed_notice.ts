/**
 * Announcing tool-list changes to an MCP client, coalesced: an extension server may
 * announce `notifications/tools/list_changed` as fast as it can write, and each notice
 * toolhost sends waits in its output until the client reads it. So at most one notice is
 * being sent; changes announced meanwhile are told by one more notice once it was taken.
 *
 * @module
 */

/**
 * A function that asks for a notice: `send` runs at once when none is being sent, else
 * once more after the current one settles (however many asked meanwhile).
 *
 * @example
 * ```ts
 * import { coalescedNotice } from "./list_changed_notice.ts";
 * let sent = 0;
 * const notify = coalescedNotice(() => (sent++, new Promise((r) => setTimeout(r, 10))));
 * notify(); notify(); notify();
 * console.log(sent); // 1 (one more follows when the first settles)
 * ```
 */
export function coalescedNotice(send: () => Promise<void>): () => void {
  let sending = false;
  let again = false;
  const run = (): void => {
    sending = true;
    again = false;
    send().catch(() => {}).finally(() => {
      sending = false;
      if (again) run();
    });
  };
  return () => {
    if (sending) again = true;
    else run();
  };
}
