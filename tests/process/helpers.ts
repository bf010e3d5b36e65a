/**
 * Shared helpers for process and protocol tests: fixture paths, a temporary state dir
 * that must end empty, and /proc assertions that nothing of a group survives.
 *
 * @module
 */

import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { callsRoot } from "../../lib/process/call_dirs.ts";
import {
  liveGroupMembers,
  type ProcessRecord,
  readProcStat,
} from "../../lib/process/proc_identity.ts";

/** Absolute directory of the fixture tools. */
export const TOOLS: string = new URL("../fixtures/tools/", import.meta.url).pathname;

/** Absolute path of a fixture tool, made executable if a checkout lost the mode. */
export function tool(name: string): string {
  const path = join(TOOLS, name);
  if ((statSync(path).mode & 0o111) === 0) chmodSync(path, 0o755);
  return path;
}

/** A minimal author environment for fixtures. */
export const ENV: Record<string, string> = {
  PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
  HOME: process.env.HOME ?? "/",
  LC_ALL: "C",
};

/** Run `body` with a fresh state dir; afterwards assert no call dir is left, and remove it. */
export async function withStateDir(body: (stateDir: string) => Promise<void>): Promise<void> {
  const stateDir = mkdtempSync(join(tmpdir(), "toolhost-test-"));
  try {
    await body(stateDir);
    assertNoCallDirs(stateDir);
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** Assert that `<stateDir>/calls` holds no call directory. */
export function assertNoCallDirs(stateDir: string): void {
  const calls = callsRoot(stateDir);
  const left = existsSync(calls) ? readdirSync(calls) : [];
  assert.deepEqual(left, [], "a call directory was left behind");
}

/** Assert via /proc that no running process of the recorded group remains. */
export function assertGroupGone(record: ProcessRecord): void {
  const live = liveGroupMembers(record.pgid);
  assert.ok(live.complete, "the /proc scan was cut by its budget");
  assert.deepEqual(live.members.map((p) => p.pid), [], "a process of the group survived");
}

/** Assert that none of `pids` is still running (zombies count as dead). */
export function assertPidsDead(pids: number[]): void {
  for (const pid of pids) {
    const st = readProcStat(pid);
    assert.ok(st === null || st.state === "Z", `process ${pid} survived`);
  }
}

/** UTF-8 decode. */
export function text(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}
