/**
 * Helpers for forged-state tests: a temporary state dir, an unrelated "victim" process
 * group (a `sleep` leading its own session, like `setsid sleep`), hand-written session
 * roots and call directories with forged records, and a spy terminator that records what
 * a sweep would have signalled instead of signalling it (safe even against code that
 * would signal pid 1 or group 0).
 *
 * @module
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TerminateOptions, TerminateReport } from "../../lib/process/kill_group.ts";
import type { ProcessRecord } from "../../lib/process/proc_identity.ts";
import { type GroupHandle, spawnGroup } from "../../lib/process/spawn_group.ts";

/** An owner record no live process can match (pid above any pid_max). */
export const DEAD_OWNER = { pid: 4_194_305, startTime: 1, bootId: null };

/** Run `body` with a fresh state dir, removed afterwards. */
export async function withState(body: (state: string) => Promise<void>): Promise<void> {
  const state = mkdtempSync(join(tmpdir(), "toolhost-forge-"));
  try {
    await body(state);
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
}

/** An unrelated process leading its own session and group (like `setsid sleep 1000`). */
export async function spawnVictim(): Promise<GroupHandle> {
  const h = await spawnGroup({ command: "/bin/sleep", args: ["1000"], cwd: "/", env: {} });
  h.stdout.resume();
  h.stderr.resume();
  return h;
}

/** Is `pid` running (zombies count as dead)? The sessions helpers' own check. */
export { isRunning as running } from "./_helpers.ts";

/** A journal admission line built from raw (possibly forged) fields. */
export function admitLine(fields: Record<string, unknown>): string {
  return JSON.stringify({ op: "admit", role: "call", ...fields });
}

/**
 * Write a forged folder `<state>/<folder>/<name>` holding `owner.json` (a dead owner by
 * default) and `journal.jsonl` with `lines`. Returns its path.
 */
export function forgeFolder(
  state: string,
  folder: "sessions" | "calls",
  name: string,
  lines: string[],
  owner: unknown = DEAD_OWNER,
): string {
  const root = join(state, folder, name);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "owner.json"), JSON.stringify(owner));
  writeFileSync(join(root, "journal.jsonl"), lines.map((l) => `${l}\n`).join(""));
  return root;
}

/** A terminator that records what it was asked to end and never signals anything. */
export function spyTerminator(): {
  asked: ProcessRecord[];
  terminate: (r: ProcessRecord, o: TerminateOptions) => Promise<TerminateReport>;
} {
  const asked: ProcessRecord[] = [];
  return {
    asked,
    terminate: (r) => {
      asked.push(r);
      return Promise.resolve({ confirmed: true, signalled: false });
    },
  };
}
