/**
 * Tracking every process a tool started, not only its process group: a process that calls
 * `setpgid` or `setsid`, or is re-parented to init (or a subreaper) by a double fork,
 * still counts against the tool's limits.
 *
 * Membership is sticky and identity-checked: once a process is known as a descendant it
 * stays one, by pid *and* start time, until it ends — whatever group or session it moves
 * to. A process joins when
 * - it is a child (`/proc/<pid>/task/<tid>/children`, parent checked again in its own
 *   `stat`) of a member — the tree walk, every round; or, on a full scan of `/proc`
 *   every few rounds (re-parented orphans),
 * - it started no earlier than the leader and is in the leader's session or process
 *   group, or carries the group's random tag (`_TOOLHOST_GROUP_TAG`) in its environment.
 *
 * - it is an orphan adopted by toolhost (lib/process/adopted.ts: when the host made
 *   toolhost a child subreaper, every orphan of a tool is re-parented to toolhost) that
 *   the `adopts` option attributes to this tree — on every full-scan round (reading only
 *   toolhost's own children lists), so a double fork that also starts a new session and
 *   drops the tag is still found.
 *
 * Without a subreaper (the npm build on Node, a library user), a process that both leaves
 * the tree between two rounds (a double fork within a few milliseconds) *and* starts a
 * new session *and* drops the tag from its environment is not found: toolhost cannot tell
 * it from any other process of the same user without a cgroup or a PID namespace
 * (confinement).
 *
 * Every round is bounded: by {@link MAX_TRACKED} members and twice as many visits, by the
 * entry and time budgets of each `/proc` listing (proc_budget.ts) — past any of them the
 * round is `truncated` and the caller fails closed — and in time — {@link DescendantTracker.step} works for at most a slice
 * of milliseconds and resumes the round on the next call, so a fork storm cannot stall
 * the event loop or starve the sampling of other calls.
 *
 * @module
 */

import process from "node:process";
import { readProcStat } from "../process/proc_identity.ts";
import { carriesGroupTag } from "../process/escape_reaper.ts";
import { adoptedOrphans, type Orphan, reapOrphan } from "../process/adopted.ts";
import { childrenOf, lastPid, listPids, readStatm } from "./proc_scan.ts";
import type { ScanBudget } from "../process/proc_budget.ts";
import { systemPageSize } from "./page_size.ts";
import { heldFileBytes } from "./held_files.ts";
import { sandboxTmpfsBytes } from "./sandbox_tmpfs.ts";
import { ShmCharges } from "./sysv_shm.ts";
import { NamespaceShm } from "./namespace_shm.ts";
import { newRound, type Round, type TreeSample, USER_HZ } from "./tree_round.ts";
import { MAX_TRACKED, type Member, type TrackerOptions, type TreeRoot } from "./tracker_options.ts";

export type { TreeSample } from "./tree_round.ts";
export { MAX_TRACKED, type TrackerOptions, type TreeRoot } from "./tracker_options.ts";

/**
 * Follows one tool's descendants (see the module documentation).
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { readProcStat } from "../process/proc_identity.ts";
 * import { DescendantTracker } from "./descendants.ts";
 * const t = new DescendantTracker({ pid: process.pid, startTime: readProcStat(process.pid)!.startTime });
 * t.step().processes; // ≥ 1
 * ```
 */
export class DescendantTracker {
  readonly #root: TreeRoot;
  readonly #members = new Map<number, Member>();
  /** Scanned processes found not to be the tool's, by pid → start time. */
  readonly #foreign = new Map<number, number>();
  readonly #max: number;
  readonly #sliceMs: number;
  readonly #scanEvery: number;
  readonly #counts?: (pid: number) => boolean;
  readonly #scan: ScanBudget;
  readonly #adopts?: (o: Orphan) => boolean;
  readonly #heldFiles: boolean;
  /** The System V segments the tool made (with `heldFiles`), and their last reading. */
  readonly #shm: ShmCharges | undefined;
  #shmBytes = 0;
  /** System V segments in the members' own IPC namespaces (a sandbox's), with `heldFiles`. */
  readonly #spaces: NamespaceShm | undefined;
  /** Adopted orphans taken in, pid → start time. */
  readonly #adopted = new Map<number, number>();
  /** Adopted orphans handed over to another tree: never taken in again. */
  readonly #released = new Map<number, number>();
  #retiredTicks = 0;
  #rounds = 0;
  #round?: Round;

  /** Track the descendants of `root`. */
  constructor(root: TreeRoot, opts: TrackerOptions = {}) {
    this.#root = root;
    this.#max = opts.maxTracked ?? MAX_TRACKED;
    this.#sliceMs = opts.sliceMs ?? 4;
    this.#scanEvery = Math.max(1, opts.scanEvery ?? 10);
    this.#counts = opts.counts;
    this.#scan = opts.scan ?? {};
    this.#adopts = opts.adopts;
    this.#heldFiles = opts.heldFiles ?? false;
    this.#shm = this.#heldFiles ? new ShmCharges() : undefined;
    this.#spaces = this.#heldFiles ? new NamespaceShm() : undefined;
    this.#members.set(root.pid, { startTime: root.startTime, ppid: -1, ticks: 0 });
  }

  /**
   * Advance the current round for at most the time slice, or until more than
   * `stopAbove` running processes were counted; returns the round's sums so far (lower
   * bounds) — `complete` once it visited everything. The next call starts a new round.
   */
  step(stopAbove: number = Number.POSITIVE_INFINITY): TreeSample {
    if (this.#round === undefined) {
      const scan = this.#rounds++ % this.#scanEvery === this.#scanEvery - 1;
      this.#round = this.#begin(scan);
      this.#chargeShm(this.#round);
    }
    const r = this.#round;
    // A listing that could not see every process cannot measure the tool: fail closed.
    if (r.cut) r.sample.truncated = r.sample.complete = true;
    const deadline = performance.now() + this.#sliceMs;
    let ops = 0;
    while (!r.sample.complete) {
      if ((++ops & 15) === 0 && performance.now() > deadline) break;
      if (!this.#advance(r)) r.sample.complete = true;
      if (r.sample.truncated || r.sample.processes > stopAbove) r.sample.complete = true;
    }
    r.sample.cpuSeconds = (r.ticks + this.#retiredTicks) / USER_HZ;
    if (r.sample.complete) this.#round = undefined;
    return { ...r.sample };
  }

  /**
   * One whole round with a full scan, ignoring the current one (bounded by the member and
   * scan budgets, yielding to the event loop after every time slice): every known
   * member, by pid and start time, zombies included — and whether the round saw
   * everything (`complete` is false when the listing was cut or the member bound was
   * passed: members may be missing). Used to kill them all.
   */
  async collect(): Promise<{ known: { pid: number; startTime: number }[]; complete: boolean }> {
    const r = this.#begin(true);
    r.full = false; // only who is there counts here, not what they hold
    this.#round = undefined;
    let deadline = performance.now() + this.#sliceMs;
    for (let ops = 1; this.#advance(r) && !r.sample.truncated; ops++) {
      if ((ops & 15) === 0 && performance.now() > deadline) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        deadline = performance.now() + this.#sliceMs;
      }
    }
    return { known: this.known(), complete: !r.cut && !r.sample.truncated };
  }

  /** Stop reading IPC namespaces: the readings in flight are killed and waited for. */
  async close(): Promise<void> {
    await this.#spaces?.close();
  }

  /** The members known now, by pid and start time (no `/proc` read). */
  known(): { pid: number; startTime: number }[] {
    return [...this.#members].map(([pid, m]) => ({ pid, startTime: m.startTime }));
  }

  /**
   * The adopted orphans taken in and still members, by pid and start time (no `/proc`
   * read).
   *
   * @example
   * ```ts
   * import { DescendantTracker } from "./descendants.ts";
   * new DescendantTracker({ pid: 999999999, startTime: 1 }).adopted(); // []
   * ```
   */
  adopted(): { pid: number; startTime: number }[] {
    return [...this.#adopted].filter(([pid, s]) => this.#members.get(pid)?.startTime === s)
      .map(([pid, startTime]) => ({ pid, startTime }));
  }

  /**
   * Stop following an adopted orphan and every member below it (another tree took it
   * over): it is neither counted nor killed by this tracker from now on.
   *
   * @example
   * ```ts
   * import { DescendantTracker } from "./descendants.ts";
   * new DescendantTracker({ pid: 999999999, startTime: 1 }).release(4242, 7); // nothing known
   * ```
   */
  release(pid: number, startTime: number): void {
    this.#released.set(pid, startTime);
    this.#adopted.delete(pid);
    if (this.#members.get(pid)?.startTime !== startTime) return;
    const below = new Map<number, number[]>();
    for (const [p, m] of this.#members) {
      const list = below.get(m.ppid);
      if (list === undefined) below.set(m.ppid, [p]);
      else list.push(p);
    }
    const drop = new Set([pid]);
    for (const p of drop) for (const c of below.get(p) ?? []) drop.add(c);
    for (const p of drop) this.#members.delete(p);
    this.#round = undefined;
  }

  /** Take in the adopted orphans this tree's `adopts` claims; false when the list was cut. */
  #adopt(): boolean {
    if (this.#adopts === undefined) return true;
    const { orphans, complete } = adoptedOrphans();
    for (const o of orphans) {
      if (o.zombie) {
        reapOrphan(o); // nobody else reaps it (its CPU time is counted: chargeReaped)
        continue;
      }
      if (o.startTime < this.#root.startTime || this.#members.has(o.pid)) continue;
      if (this.#released.get(o.pid) === o.startTime || !this.#adopts(o)) continue;
      this.#members.set(o.pid, { startTime: o.startTime, ppid: process.pid, ticks: 0 });
      this.#adopted.set(o.pid, o.startTime);
      if (this.#members.size > this.#max) return false;
    }
    return complete;
  }

  /**
   * Count the CPU time of an adopted orphan just reaped (lib/process/adopted.ts reports
   * every reap) when it is this tree's: a member (the whole replaces its last reading), or
   * one no round saw running (it lived and ended between two full-scan rounds) that this
   * tree would have adopted.
   *
   * @example
   * ```ts
   * import { DescendantTracker } from "./descendants.ts";
   * const t = new DescendantTracker({ pid: 999999999, startTime: 1 });
   * t.chargeReaped({ pid: 4242, startTime: 7, sid: 4242, pgrp: 4242, zombie: true }, 50);
   * ```
   */
  chargeReaped(o: Orphan, ticks: number): void {
    const m = this.#members.get(o.pid);
    if (m !== undefined && m.startTime === o.startTime) {
      m.ticks = 0; // its retirement adds nothing more
      this.#retiredTicks += ticks;
      return;
    }
    if (o.startTime < this.#root.startTime || m !== undefined) return;
    if (this.#released.get(o.pid) === o.startTime || this.#adopts?.(o) !== true) return;
    this.#retiredTicks += ticks;
  }

  #begin(scan: boolean): Round {
    if (!scan) return newRound([], this.#members.keys(), false);
    const whole = this.#adopt();
    // Pids are handed out in increasing order until they wrap: unless the counter wrapped
    // since the leader started, only larger pids can be its descendants.
    const root = this.#root.pid;
    const wrapped = lastPid() < root;
    const listing = listPids(this.#scan);
    const pids = listing.pids.filter((p) => wrapped || p > root);
    const listed = new Set(pids);
    for (const pid of this.#foreign.keys()) if (!listed.has(pid)) this.#foreign.delete(pid);
    return newRound(pids, this.#members.keys(), true, listing.cut || !whole);
  }

  /** One unit of work; false when the round has nothing left to do. */
  #advance(r: Round): boolean {
    if (r.si < r.scan.length) {
      this.#consider(r, r.scan[r.si++]);
      return true;
    }
    if (r.qi < r.queue.length) {
      const [pid, parent] = r.queue[r.qi++];
      this.#visit(r, pid, parent);
      return true;
    }
    return false;
  }

  /** A scanned process that is not a member yet: does it belong to the tool? */
  #consider(r: Round, pid: number): void {
    if (this.#members.has(pid) || pid === process.pid) return;
    const st = readProcStat(pid);
    const root = this.#root;
    if (st === null || st.startTime < root.startTime) return;
    if (this.#foreign.get(pid) === st.startTime) return;
    const ours = st.sid === root.pid || st.pgrp === root.pid || this.#members.has(st.ppid) ||
      (root.tag !== undefined && carriesGroupTag(pid, root.tag));
    if (!ours) {
      // Settled for its life: a process never joins the session, group or tag later (a
      // member's child is found by the walk, not here).
      this.#foreign.set(pid, st.startTime);
      return;
    }
    this.#members.set(pid, { startTime: st.startTime, ppid: st.ppid, ticks: 0 });
    r.queue.push([pid, -1]);
    if (this.#members.size > this.#max) r.sample.truncated = true;
  }

  #visit(r: Round, pid: number, parent: number): void {
    if (r.visited.has(pid)) return;
    r.visited.add(pid);
    // A chain of processes that fork and exit faster than the walk follows them would keep
    // a round going (and summing) for ever: past the bound it cannot be measured.
    if (r.visited.size > 2 * this.#max) {
      r.sample.truncated = true;
      return;
    }
    const st = readProcStat(pid);
    let m = this.#members.get(pid);
    if (m !== undefined && (st === null || st.startTime !== m.startTime)) {
      this.#retire(pid, m);
      return;
    }
    if (m === undefined) {
      // A child listed by a member: adopt it only if it still is that member's child.
      if (st === null || st.ppid !== parent || st.startTime < this.#root.startTime) return;
      m = { startTime: st.startTime, ppid: st.ppid, ticks: 0 };
      this.#members.set(pid, m);
      if (this.#members.size > this.#max) {
        r.sample.truncated = true;
        return;
      }
    }
    m.ppid = st!.ppid;
    const zombie = st!.state === "Z" || st!.state === "X";
    if (!zombie) {
      const children = childrenOf(pid);
      // A member with more threads than can be read cannot be followed: fail closed.
      if (!children.complete) r.sample.truncated = true;
      for (const c of children.pids) if (!r.visited.has(c)) r.queue.push([c, pid]);
    }
    const counted = this.#counts?.(pid) ?? true;
    m.ticks = counted ? st!.ticks : 0;
    r.ticks += m.ticks;
    if (zombie || !counted) return;
    // Every thread is a task, as the kernel's pids controller counts them (cgroup mode):
    // one process with thousands of threads takes as many pids as a fork bomb.
    r.sample.processes += st!.threads;
    const page = systemPageSize();
    const mem = readStatm(pid);
    r.sample.rssBytes += mem.rss * page;
    r.sample.maxDataBytes = Math.max(r.sample.maxDataBytes, mem.data * page);
    this.#countHeld(r, pid, m);
  }

  /**
   * Add the memory `pid` holds in open memory files and in its sandbox's private tmpfs
   * mounts: read on full-scan rounds (a process not measurable so fails the round closed),
   * the last reading on the others.
   */
  #countHeld(r: Round, pid: number, m: Member): void {
    if (!this.#heldFiles) return;
    if (r.full) {
      const held = heldFileBytes(pid, r.files);
      if (!held.complete) r.sample.truncated = true;
      // Its IPC namespace's segments, when it is not toolhost's (a sandbox's): all of them.
      const spaced = this.#spaces!.visit(pid, m.startTime);
      if (spaced === undefined) r.sample.truncated = true;
      m.held = held.bytes + sandboxTmpfsBytes(pid, r.files) + (spaced ?? 0);
    }
    r.sample.heldFileBytes += m.held ?? 0;
  }

  /** Add the System V segments' bytes: read on full-scan rounds, the last reading between. */
  #chargeShm(r: Round): void {
    if (this.#shm === undefined) return;
    if (r.full) this.#shmBytes = this.#shm.charge(this.#members.keys());
    if (r.full) this.#spaces?.begin();
    r.sample.heldFileBytes += this.#shmBytes;
  }

  /** A member ended: its CPU time stays counted unless a member parent reaped it. */
  #retire(pid: number, m: Member): void {
    this.#shm?.remember(pid); // a segment it made is still the tool's
    this.#members.delete(pid);
    if (!this.#members.has(m.ppid)) this.#retiredTicks += m.ticks;
  }
}
