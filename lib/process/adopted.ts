/**
 * Orphans adopted by toolhost. A tool that double-forks leaves a grandchild whose parent
 * exited; the kernel hands it to the nearest *child subreaper* among its ancestors, or to
 * init. When the host made toolhost a subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`, then
 * host_reaper.ts's `useHostSubreaper`: the CLI does it under Deno, see `cli.ts`), every orphan of
 * every tool, however it left its group (`setsid`, `env -i`, a double fork), becomes a
 * child of toolhost itself — findable with no scan of `/proc` and no tag, in
 * `/proc/self/task/<tid>/children`. Without the host hook (the npm build on Node, which
 * has no `prctl`; a library user of `mod.ts`) nothing here finds anything and orphans go
 * to init, as before: then an orphan that also dropped the group tag and left the session
 * escapes the limits watchdog (see lib/limits/descendants.ts).
 *
 * An *adopted orphan* is a child of this process that this process did not spawn (every
 * spawn site notes its child with {@link noteOwnChild}, synchronously after `spawn`) and
 * that is in a session other than this process's: every group toolhost starts leads a
 * session of its own, so anything of a tool is outside toolhost's session, while a child
 * spawned plainly by code in this process (a probe, a plugin's helper) stays in it. A
 * plugin that spawns a *detached* child and lets it run while a call runs is the one case
 * this cannot tell apart (documented in docs/trust.md).
 *
 * Who ends an orphan: a limited run's guard (lib/limits/guard.ts) counts and kills the
 * ones it attributes to its tree; any group's end ({@link endAdoptedOf}) kills the ones
 * no running group could own; the last resort kills every one still running.
 *
 * Neither Deno's nor Node's child handling reaps a process it did not spawn: an adopted
 * orphan that ends stays a zombie. {@link reapAdoptedZombies} reaps them with the host's
 * `waitpid(pid, WNOHANG)`, only for pids confirmed adopted (never a child Deno or Node
 * waits for itself). Callers: the limits watchdog's full-scan rounds and a limited
 * run's end, every group's end, and the last resort.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import process from "node:process";
import { onLastResort } from "./last_resort.ts";
import { readProcStat } from "./proc_identity.ts";
import { childPidsBounded } from "./sandbox_init.ts";
import { hostSubreaper } from "./host_reaper.ts";

/** An adopted orphan, by identity, with what attributes it to a group. */
export interface Orphan {
  /** Its pid (its parent is this process). */
  pid: number;
  /** Its start time, clock ticks since boot. */
  startTime: number;
  /** Its session id. */
  sid: number;
  /** Its process group id. */
  pgrp: number;
  /** It exited and waits to be reaped. */
  zombie: boolean;
}

let ownSid: number | undefined;

/** A child this process spawned: its start time (null when unreadable), whether it leads tools. */
interface OwnChild {
  startTime: number | null;
  leads: boolean;
}

/** Children this process spawned, by pid. */
const ownChildren = new Map<number, OwnChild>();

/**
 * Whether this process is a child subreaper (the host said so).
 *
 * @example
 * ```ts
 * import { subreaping } from "./adopted.ts";
 * typeof subreaping(); // "boolean"
 * ```
 */
export function subreaping(): boolean {
  if (hostSubreaper() === undefined) return false;
  if (ownSid === undefined) {
    ownSid = readProcStat(process.pid)?.sid;
    // Whatever was adopted and still runs when this process exits is killed.
    if (ownSid !== undefined) onLastResort(() => void killAdoptedOrphans());
  }
  return ownSid !== undefined;
}

/**
 * Note a child this process just spawned (call synchronously after `spawn` returned, before
 * the event loop runs): it is never taken for an adopted orphan.
 *
 * `leads`: false for a helper that runs no tool (the dead man's switch), which therefore
 * never owns an orphan.
 *
 * @example
 * ```ts
 * import { noteOwnChild } from "./adopted.ts";
 * noteOwnChild(undefined); // a failed spawn: nothing to note
 * ```
 */
export function noteOwnChild(pid: number | undefined, leads = true): void {
  if (pid === undefined) return;
  prune();
  ownChildren.set(pid, { startTime: readProcStat(pid)?.startTime ?? null, leads });
  subreaping(); // installs the last resort before anything can be adopted
}

function ownChild(pid: number, startTime: number): OwnChild | undefined {
  const noted = ownChildren.get(pid);
  if (noted === undefined || (noted.startTime !== null && noted.startTime !== startTime)) {
    return undefined;
  }
  return noted;
}

/** Whether noted child `pid` still runs as this process's child. */
function stillOurs(pid: number, noted: OwnChild): Orphan | undefined {
  const st = readProcStat(pid);
  if (st === null || st.ppid !== process.pid || st.state === "Z" || st.state === "X") return;
  if (noted.startTime !== null && noted.startTime !== st.startTime) return;
  return { pid, startTime: st.startTime, sid: st.sid, pgrp: st.pgrp, zombie: false };
}

/**
 * Whether noted child `pid` is gone: reaped by Node or Deno (or its pid now another
 * process's). A child that ended and waits to be reaped by them is still ours: forgotten,
 * it would be listed as an adopted zombie and reaped here, and the runtime's own `waitpid`
 * would then fail with `ECHILD` (an uncaught error that ended `serve` under load).
 */
function gone(pid: number, noted: OwnChild): boolean {
  const st = readProcStat(pid);
  return st === null || st.ppid !== process.pid ||
    (noted.startTime !== null && noted.startTime !== st.startTime);
}

/** Size past which the noted children are pruned (doubles with what a prune keeps). */
let pruneAbove = 256;

/**
 * Forget noted children that are gone, once there are many; then not again until twice as
 * many are noted as were kept, so many long-lived children (sessions) do not make every
 * spawn read every one's `stat`.
 */
function prune(): void {
  if (ownChildren.size <= pruneAbove) return;
  for (const [pid, noted] of ownChildren) if (gone(pid, noted)) ownChildren.delete(pid);
  pruneAbove = Math.max(256, 2 * ownChildren.size);
}

/**
 * The adopted orphans now (empty unless {@link subreaping}), zombies included, and whether
 * the listing was read.
 *
 * The kernel re-parents an orphan to the subreaper's first live thread (`find_alive_thread`
 * walks the thread group from its leader), so while this process's main thread runs,
 * every orphan it adopted is in that one thread's `children` file: one read, however many
 * threads the runtime has.
 *
 * @example
 * ```ts
 * import { adoptedOrphans } from "./adopted.ts";
 * adoptedOrphans().orphans.length; // 0 unless subreaping and a tool's orphan runs
 * ```
 */
export function adoptedOrphans(): { orphans: Orphan[]; complete: boolean } {
  const orphans: Orphan[] = [];
  if (!subreaping()) return { orphans, complete: true };
  let text: string;
  try {
    text = readFileSync(`/proc/self/task/${process.pid}/children`, "latin1").trim();
  } catch {
    return { orphans, complete: false };
  }
  for (const pid of text === "" ? [] : text.split(" ").map(Number)) {
    const st = readProcStat(pid);
    if (st === null || st.ppid !== process.pid || st.sid === ownSid) continue;
    if (ownChild(pid, st.startTime) !== undefined) continue;
    const zombie = st.state === "Z" || st.state === "X";
    orphans.push({ pid, startTime: st.startTime, sid: st.sid, pgrp: st.pgrp, zombie });
  }
  return { orphans, complete: true };
}

/** The running children this process spawned that lead tools (noted with `leads`). */
function runningLeaders(): Orphan[] {
  const out: Orphan[] = [];
  for (const [pid, noted] of ownChildren) {
    const o = noted.leads ? stillOurs(pid, noted) : undefined;
    if (o !== undefined && o.sid !== ownSid) out.push(o);
  }
  return out;
}

/**
 * Reap `o`, an adopted orphan just listed as a zombie by {@link adoptedOrphans}
 * (`waitpid(pid, WNOHANG)` through the host); true when it was reaped.
 *
 * @example
 * ```ts
 * import { reapOrphan } from "./adopted.ts";
 * reapOrphan({ pid: 999999999, startTime: 1, sid: 1, pgrp: 1, zombie: true }); // false
 * ```
 */
export function reapOrphan(o: Orphan): boolean {
  const host = hostSubreaper();
  if (host === undefined || !o.zombie) return false;
  const before = childrenTicks();
  try {
    if (!host.reap(o.pid)) return false;
  } catch {
    return false; // the host refused: left for the next listing
  }
  const after = childrenTicks();
  const ticks = before === null || after === null ? 0 : Math.max(0, after - before);
  for (const l of reapListeners) l(o, ticks);
  return true;
}

/** Told of every adopted orphan reaped, with the CPU time it used (see {@link onOrphanReaped}). */
export type ReapListener = (o: Orphan, ticks: number) => void;

const reapListeners = new Set<ReapListener>();

/**
 * Call `listener` with every adopted orphan this process reaps, wherever it is reaped, and
 * the CPU time it used in clock ticks — all of it, its reaped descendants' included — so
 * the limits watchdog counts an orphan that lived and ended between two of its looks. The
 * time is what reaping it added to this process's children's CPU time (`cutime + cstime`
 * of `/proc/self/stat`, which the kernel sums in nanoseconds): unlike the orphan's own
 * `stat`, which rounds each process down to a whole tick, the differences of many reaps
 * add up to their true total, so a tool cannot hide CPU time in many orphans that each use
 * less than a tick. A child Deno or Node reaps at the same instant would be counted with
 * it (more, never less). Returns the function that removes the listener.
 *
 * @example
 * ```ts
 * import { onOrphanReaped } from "./adopted.ts";
 * const off = onOrphanReaped((o, ticks) => console.log(o.pid, ticks));
 * off();
 * ```
 */
export function onOrphanReaped(listener: ReapListener): () => void {
  reapListeners.add(listener);
  return () => void reapListeners.delete(listener);
}

/** `cutime + cstime` of this process (`/proc/self/stat` fields 16–17), or null. */
function childrenTicks(): number | null {
  try {
    const text = readFileSync("/proc/self/stat", "latin1");
    const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const t = Number(f[13]) + Number(f[14]);
    return Number.isFinite(t) ? t : null;
  } catch {
    return null;
  }
}

/**
 * Reap every adopted orphan that exited (`waitpid(pid, WNOHANG)` through the host; only
 * pids just confirmed adopted, never a child this process spawned). Returns how many.
 *
 * @example
 * ```ts
 * import { reapAdoptedZombies } from "./adopted.ts";
 * reapAdoptedZombies(); // 0 unless subreaping
 * ```
 */
export function reapAdoptedZombies(): number {
  let n = 0;
  for (const o of adoptedOrphans().orphans) if (reapOrphan(o)) n++;
  return n;
}

/**
 * SIGKILL every adopted orphan still running and reap the ones that ended (the last
 * resort: this process is going away, and an orphan of its tools must not outlive it).
 * Returns how many were signalled.
 *
 * @example
 * ```ts
 * import { killAdoptedOrphans } from "./adopted.ts";
 * killAdoptedOrphans(); // 0 unless subreaping
 * ```
 */
export function killAdoptedOrphans(): number {
  let n = 0;
  for (const o of adoptedOrphans().orphans) {
    if (o.zombie || readProcStat(o.pid)?.startTime !== o.startTime) continue;
    try {
      process.kill(o.pid, "SIGKILL");
      n++;
    } catch { /* ended meanwhile */ }
  }
  reapAdoptedZombies();
  return n;
}

type Leader = { pid: number; startTime: number | null };

/**
 * Whether orphan `o` is the ended group `leader`'s to end now: it started no earlier than
 * the leader, and no running group toolhost leads could own it — one in another running
 * group's session or process group is that group's; one in `leader`'s is `leader`'s; any
 * other is left to the end of a running group whose leader started no later than it.
 */
function endsWith(leader: Leader, o: Orphan, running: Orphan[]): boolean {
  if (leader.startTime === null || o.startTime < leader.startTime) return false;
  const others = running.filter((l) => l.pid !== leader.pid);
  if (others.some((l) => o.sid === l.pid || o.pgrp === l.pid)) return false;
  if (o.sid === leader.pid || o.pgrp === leader.pid) return true;
  return !others.some((l) => l.startTime <= o.startTime);
}

/** Most processes one orphan's subtree walk visits. */
const MAX_SUBTREE = 4096;

/** SIGKILL `o` and every process below it (bounded walk); adds them to `into`. */
function killSubtree(o: Orphan, into: Map<number, number>): boolean {
  const queue: [pid: number, parent: number][] = [[o.pid, process.pid]];
  let complete = true;
  for (let i = 0; i < queue.length; i++) {
    if (i >= MAX_SUBTREE) return false;
    const [pid, parent] = queue[i];
    const st = readProcStat(pid);
    if (st === null || st.ppid !== parent || st.state === "Z" || st.state === "X") continue;
    const below = childPidsBounded(pid);
    complete &&= below.complete;
    for (const c of below.pids) queue.push([c, pid]);
    try {
      process.kill(pid, "SIGKILL");
      into.set(pid, st.startTime);
    } catch { /* ended meanwhile */ }
  }
  return complete;
}

function running(pid: number, startTime: number): boolean {
  const st = readProcStat(pid);
  return st !== null && st.startTime === startTime && st.state !== "Z" && st.state !== "X";
}

/**
 * End what a group that just ended left among the adopted orphans ({@link endsWith}: only
 * orphans no running group could own), each with everything below it, in rounds (at most
 * 5: a process may fork while it is killed, and its orphans come back to this process),
 * waiting at most `ms` in all until every one signalled is gone; reaps them. Resolves to
 * whether every listing was whole, a round came up empty and all are gone (true at once
 * unless {@link subreaping}).
 *
 * @example
 * ```ts
 * import { endAdoptedOf } from "./adopted.ts";
 * await endAdoptedOf({ pid: 999999999, startTime: 1 }); // true
 * ```
 */
export async function endAdoptedOf(leader: Leader, ms = 2000): Promise<boolean> {
  if (!subreaping()) return true;
  const killed = new Map<number, number>();
  const deadline = Date.now() + ms;
  let whole = false;
  let seen = true;
  for (let round = 0; round < 5 && !whole; round++) {
    const { orphans, complete } = adoptedOrphans();
    seen &&= complete;
    let leaders: Orphan[] | undefined; // read only when there is an orphan to attribute
    let fresh = 0;
    for (const o of orphans) {
      if (o.zombie) reapOrphan(o);
      if (o.zombie || killed.get(o.pid) === o.startTime) continue;
      if (!endsWith(leader, o, leaders ??= runningLeaders())) continue;
      seen = killSubtree(o, killed) && seen;
      fresh++;
    }
    whole = fresh === 0;
    while ([...killed].some(([p, s]) => running(p, s)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  if (killed.size > 0) reapAdoptedZombies();
  return whole && seen && ![...killed].some(([p, s]) => running(p, s));
}
