/**
 * Helpers for session tests: a temporary workspace whose Artifact `app` declares the
 * session `app` (fixture harness.sh) and bound tools, a registry on it with a private
 * state dir, and /proc + state-dir assertions that nothing survives.
 *
 * @module
 */

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { callsRoot } from "../../lib/process/call_dirs.ts";
import {
  liveGroupMembers,
  type ProcessRecord,
  readProcStat,
} from "../../lib/process/proc_identity.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { type JournalEntry, readJournal } from "../../lib/sessions/journal.ts";
import { sessionsRoot } from "../../lib/sessions/session_dir.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { type TempWorkspace, tempWorkspace } from "../helpers/workspace.ts";

/** The fixture harness's text. */
export const HARNESS: string = readFileSync(
  new URL("./fixtures/harness.sh", import.meta.url),
  "utf8",
);

/** A minimal author environment. */
export const ENV: Record<string, string> = {
  PATH: Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin",
  HOME: Deno.env.get("HOME") ?? "/",
  LC_ALL: "C",
};

/** How the fixture session is declared. */
export interface SessionSetup {
  /** Extra argv after `start` (a harness.sh mode). Default none (normal start). */
  start?: string[];
  /** Extra argv after `stop`. Default none (asks start to quit). */
  stop?: string[];
  /** Deadline of every bound tool, ms. Default 120000. */
  timeoutMs?: number;
}

function table(name: string, args: string[], extra = ""): string {
  return `
[artifacts.app.views.agent_tools.${name}]
session = "app"
description = "Fixture ${name}."
protocol = "plain"
command = "./harness.sh"
args = ${JSON.stringify(args)}
${extra}`;
}

/**
 * The manifest: session `app` and bound tools put/get/env/quit/hang (plain) and json.
 *
 * @example
 * ```ts
 * import { sessionToml } from "./_helpers.ts";
 * sessionToml({ start: ["never_ready"] });
 * ```
 */
export function sessionToml(setup: SessionSetup = {}): string {
  const start = JSON.stringify(["start", ...(setup.start ?? [])]);
  const stop = JSON.stringify(["stop", ...(setup.stop ?? [])]);
  const timeout = setup.timeoutMs === undefined ? "" : `timeout_ms = ${setup.timeoutMs}\n`;
  const value =
    `input_schema = { type = "object", properties = { value = { type = "string" } }, required = ["value"], additionalProperties = false }\n`;
  return `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.read]
builtin = "read"

[artifacts.app.views.agent_sessions.app]
start = { command = "./harness.sh", args = ${start}, execution_paths = ["app/harness.sh"] }
stop = { command = "./harness.sh", args = ${stop}, execution_paths = ["app/harness.sh"] }
${table("put", ["put", "{value}"], timeout + value)}${table("get", ["get"], timeout)}${
    table("env", ["env"], timeout)
  }${table("quit", ["quit"], timeout)}${table("hang", ["hang"], timeout)}
[artifacts.app.views.agent_tools.json]
session = "app"
description = "Fixture json."
protocol = "json"
command = "./harness.sh"
args = ["json"]
${timeout}`;
}

/** A temporary workspace with the fixture session. */
export function sessionWorkspace(setup: SessionSetup = {}): Promise<TempWorkspace> {
  return tempWorkspace(sessionToml(setup), {
    "app/harness.sh": { text: HARNESS, mode: 0o755 },
    "app/README.md": "# app\n",
  });
}

/** Open the eval `app/review` with a state dir below the workspace. */
export async function openRegistry(
  root: string,
  stateDir = join(root, ".state"),
): Promise<Registry> {
  const ws = await loadWorkspace(root);
  return await Registry.open(ws, "app/review", { stateDir, env: ENV });
}

/** Entries of `<stateDir>/sessions` (empty when it does not exist). */
export function sessionEntries(stateDir: string): string[] {
  const dir = sessionsRoot(stateDir);
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** Every journal entry (unretired) of every session root of a state dir. */
export async function journalEntries(stateDir: string): Promise<JournalEntry[]> {
  const out: JournalEntry[] = [];
  for (const name of sessionEntries(stateDir)) {
    out.push(...await readJournal(join(sessionsRoot(stateDir), name, "journal.jsonl")));
  }
  return out;
}

/** Assert that no session root and no call directory is left in the state dir. */
export function assertStateClean(stateDir: string): void {
  assert.deepEqual(sessionEntries(stateDir), [], "a session directory was left behind");
  const calls = callsRoot(stateDir);
  assert.deepEqual(
    existsSync(calls) ? readdirSync(calls) : [],
    [],
    "a call directory was left behind",
  );
}

/** Assert via /proc that no running member of any recorded group remains. */
export function assertGroupsGone(records: ProcessRecord[]): void {
  for (const r of records) {
    assert.deepEqual(
      liveGroupMembers(r.pgid).members.map((p) => p.pid),
      [],
      `group ${r.pgid} survived`,
    );
  }
}

/** Is `pid` running (zombies count as dead)? */
export function isRunning(pid: number): boolean {
  const st = readProcStat(pid);
  return st !== null && st.state !== "Z";
}

/** Read the pids a harness appended to a file (one per line). */
export function readPids(path: string): number[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8").split("\n").filter((l) => l.trim() !== "").map(Number);
}

/** Wait until `check()` is true, polling; throws after `ms`. */
export async function waitFor(
  check: () => boolean,
  ms = 60_000, // a cap on a condition wait, not a timing assertion
  what = "condition",
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The text of a result's first block. */
export function textOf(r: { content: { type: string; text?: string }[] }): string {
  return r.content[0]?.text ?? "";
}
