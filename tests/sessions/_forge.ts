/**
 * Helpers for forged-state tests: a temporary state dir, an unrelated "victim" process
 * group (a `sleep` leading its own session, like `setsid sleep`), hand-written session
 * roots and call directories with forged records, and a spy terminator that records what
 * a sweep would have signalled instead of signalling it (safe even against code that
 * would signal pid 1 or group 0).
 *
 * @module
 */

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readlinkSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { carriesGroupTag } from "../../lib/process/escape_reaper.ts";
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
  await awaitExec(h, "/bin/sleep");
  return h;
}

/**
 * Wait until the leader of `h` runs `program` with its group's tag readable in its
 * environment. Under Deno, `spawnGroup` returns once the `setsid` launcher leads its own
 * session (session_launcher.ts), which can be before the launcher's own `exec` of the
 * command is through; while the kernel builds the new image, `/proc/PID/environ` reads
 * empty, so a sweep that verifies the group's tag then (rightly, failing closed) refuses
 * it. A sweep run at that instant is a different test from the one meant here.
 *
 * @example
 * ```ts
 * import { awaitExec } from "./_forge.ts";
 * // const h = await spawnGroup({ command: "/bin/sleep", args: ["1000"], cwd: "/", env: {} });
 * // await awaitExec(h, "/bin/sleep");
 * ```
 */
export async function awaitExec(h: GroupHandle, program: string): Promise<void> {
  const { pid, tag } = h.record;
  const exe = realpathSync(program);
  const execed = () => {
    try {
      return readlinkSync(`/proc/${pid}/exe`) === exe && carriesGroupTag(pid, tag!);
    } catch {
      return false;
    }
  };
  // A cap on a condition wait (60 s), not a timing assertion.
  for (const deadline = Date.now() + 60_000; !execed();) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${program} to be exec'd`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Assert no one signalled `victim` (a `spawnVictim()` handle) so far, with no clock: send
 * it SIGUSR1 and check that is what it died of. The first fatal signal sent to a process
 * decides its death (the kernel starts the exit when it is sent, not when it is handled):
 * had anything signalled it before, that is what it died of. Ends the victim.
 *
 * @example
 * ```ts
 * import { assertNeverSignalled, spawnVictim } from "./_forge.ts";
 * const victim = await spawnVictim();
 * await assertNeverSignalled(victim, "the sweep signalled the victim");
 * ```
 */
export async function assertNeverSignalled(victim: GroupHandle, message: string): Promise<void> {
  try {
    process.kill(victim.record.pid, "SIGUSR1");
  } catch {
    // already gone: the exit status below says of what
  }
  const status = await victim.exited;
  assert.deepEqual(status, { exitCode: null, signal: "SIGUSR1" }, message);
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
