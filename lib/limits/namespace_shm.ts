/**
 * System V shared memory in IPC namespaces other than toolhost's: a confined tool runs in
 * its sandbox's own IPC namespace (bubblewrap `--unshare-ipc`), and a tool may make one of
 * its own (`unshare --ipc`). `/proc/sysvipc/shm` lists the segments of the *reader's*
 * namespace only, so sysv_shm.ts never sees theirs: in `rlimit` mode a confined tool under
 * `max_memory_mb = 50` held 200 MiB in a detached segment until its timeout.
 *
 * Such a namespace belongs to the call whose member is in it (it ends with its last
 * process), so every segment in it counts, by its `rss` + `swap`. Its table is read from
 * inside it: `nsenter [--user=/proc/self/fd/4] --ipc=/proc/self/fd/3 --preserve-credentials
 * -- /usr/bin/cat /proc/sysvipc/shm` with the member's namespaces opened by toolhost and
 * handed down as descriptors 3 and 4 (never `--target <pid>`), the helpers from the system folders, with an empty
 * environment. Only the user and IPC namespaces are entered — never the member's mount
 * namespace or root — so nothing of the tool's runs or is read; entering its user
 * namespace is what lets an unprivileged owner (no capability in its own namespace) join
 * the IPC namespace, and the reader's pid stays outside the tool's PID namespace.
 *
 * One reading per namespace at a time, started on full-scan rounds, bounded:
 * {@link READ_TIMEOUT_MS} (then killed) and {@link MAX_TABLE_BYTES} (a namespace holds at
 * most 4096 segments, a few hundred KiB of table; past the bound it is killed). The
 * member's namespaces are opened first and checked after the open (the IPC one is the
 * namespace visited, the member is still the process started at its start time), so a
 * reading is of that namespace whatever the member does after — ends, has its pid reused,
 * moves to another namespace: a chain of members each ending before a reading does cannot
 * keep the namespace at 0. Until the first reading of a namespace ends it counts 0.
 *
 * Fail closed: a namespace that cannot be read (no `nsenter`, {@link MAX_FAILED_READINGS}
 * readings in a row that failed, timed out or overflowed, more than {@link MAX_NAMESPACES}
 * of them) makes the round unmeasurable, and the guard stops the call.
 *
 * Not seen: a namespace no member is in, kept alive only by a descriptor a member holds
 * (`/proc/<pid>/ns/ipc` passed over a socket) — a tool that can create user namespaces
 * inside its sandbox can do that (docs/trust.md).
 *
 * @module
 */

import { spawn } from "node:child_process";
import { closeSync, fstatSync, openSync, statSync } from "node:fs";
import { readProcStat } from "../process/proc_identity.ts";
import { concatBytes } from "../bytes/concat_bytes.ts";
import { parseSysvShm } from "./sysv_shm.ts";

/** Time a reading may take before it is killed and the namespace is unmeasurable. */
export const READ_TIMEOUT_MS = 10_000;
/** Most bytes of one namespace's table. */
export const MAX_TABLE_BYTES = 4 * 1024 * 1024;
/** Most foreign IPC namespaces one call may be in. */
export const MAX_NAMESPACES = 16;
/**
 * Readings in a row that may fail while their member lives on before the namespace is
 * unmeasurable. One failure alone is not proof: a namespace read in the instant its
 * process made it (before its user namespace's id maps are written) cannot be entered
 * yet, and stopping a well-behaved call for that would be a false stop. A success resets
 * the count, so a tool gains at most two rounds by making readings fail.
 */
export const MAX_FAILED_READINGS = 3;

/** The state of one namespace. */
interface Space {
  /** Bytes of its last reading. */
  bytes: number;
  /** {@link MAX_FAILED_READINGS} readings in a row failed: unmeasurable. */
  failed: boolean;
  /** Readings in a row that failed. */
  failures: number;
  /** A reading in flight: its process. */
  reader?: { kill(): void; done: Promise<void> };
}

/** Where the helpers are: the system folders only (a `PATH` folder may be the tool's). */
function systemProgram(name: string): string | undefined {
  for (const d of ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]) {
    try {
      const st = statSync(`${d}/${name}`);
      if (st.isFile() && (st.mode & 0o111) !== 0) return `${d}/${name}`;
    } catch { /* next */ }
  }
  return undefined;
}

/** The inode of a process's namespace `kind` (`ipc`, `user`), or undefined. */
function nsId(pid: number | "self", kind: string): number | undefined {
  try {
    return statSync(`/proc/${pid}/ns/${kind}`).ino;
  } catch {
    return undefined;
  }
}

/**
 * The bytes held by System V segments in the foreign IPC namespaces of a call's members
 * (see the module documentation).
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { NamespaceShm } from "./namespace_shm.ts";
 * const ns = new NamespaceShm();
 * ns.begin();
 * ns.visit(process.pid, 0); // 0: toolhost's own namespace is sysv_shm.ts's
 * await ns.close();
 * ```
 */
export class NamespaceShm {
  readonly #spaces = new Map<number, Space>();
  /** Namespaces seen in the current full round. */
  #seen = new Set<number>();
  #closed = false;
  readonly #own = nsId("self", "ipc");
  readonly #ownUser = nsId("self", "user");
  readonly #nsenter: string | undefined;
  readonly #cat: string | undefined;

  /** Read with `helpers` (default: `nsenter` and `cat` from the system folders). */
  constructor(helpers: { nsenter?: string; cat?: string } = {
    nsenter: systemProgram("nsenter"),
    cat: systemProgram("cat"),
  }) {
    this.#nsenter = helpers.nsenter;
    this.#cat = helpers.cat;
  }

  /** A full-scan round starts: namespaces no member is in any more are forgotten. */
  begin(): void {
    for (const id of this.#spaces.keys()) {
      if (!this.#seen.has(id) && this.#spaces.get(id)!.reader === undefined) {
        this.#spaces.delete(id);
      }
    }
    this.#seen = new Set();
  }

  /**
   * A running member (`pid`, started at `startTime`) on a full-scan round: the bytes of
   * its IPC namespace's last reading the first time the round meets that namespace (0
   * after, and for toolhost's own namespace), starting a reading when none is in flight;
   * `undefined` when the namespace cannot be measured.
   */
  visit(pid: number, startTime: number): number | undefined {
    const id = nsId(pid, "ipc");
    if (id === undefined || id === this.#own || this.#seen.has(id)) return 0;
    this.#seen.add(id);
    let space = this.#spaces.get(id);
    if (space === undefined) {
      if (this.#spaces.size >= MAX_NAMESPACES) return undefined;
      this.#spaces.set(id, space = { bytes: 0, failed: false, failures: 0 });
    }
    if (space.failed || this.#nsenter === undefined || this.#cat === undefined) return undefined;
    if (space.reader === undefined && !this.#closed) this.#read(space, id, pid, startTime);
    return space.bytes;
  }

  /** Kill the readings in flight and wait for them; none starts after. */
  async close(): Promise<void> {
    this.#closed = true;
    const readers = [...this.#spaces.values()].flatMap((s) => s.reader ?? []);
    for (const r of readers) r.kill();
    await Promise.all(readers.map((r) => r.done));
  }

  /**
   * Start reading namespace `id` through member `pid`: its namespaces are opened first
   * and checked after the open (the namespace `id`, the member still the same process),
   * then entered by those descriptors — never by pid — so what is read is `id`'s table
   * whatever the member does after (ends, its pid is reused, it moves to another
   * namespace).
   */
  #read(space: Space, id: number, pid: number, startTime: number): void {
    const fds = this.#pin(pid, startTime, id);
    if (fds === undefined) return; // not that member in that namespace any more: next round
    const args = fds.length > 1 ? ["--user=/proc/self/fd/4"] : [];
    args.push("--ipc=/proc/self/fd/3", "--preserve-credentials");
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(this.#nsenter!, [...args, "--", this.#cat!, "/proc/sysvipc/shm"], {
        env: {},
        cwd: "/",
        stdio: ["ignore", "pipe", "ignore", ...fds],
      });
    } catch {
      failedReading(space); // not started, though the namespace is pinned
      return;
    } finally {
      for (const fd of fds) closeQuietly(fd);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    let over = false;
    const kill = () => {
      try {
        child.kill("SIGKILL");
      } catch { /* ended already */ }
    };
    const timer = setTimeout(() => {
      over = true;
      kill();
    }, READ_TIMEOUT_MS);
    child.stdout!.on("data", (c: Uint8Array) => {
      size += c.length;
      if (size > MAX_TABLE_BYTES) {
        over = true;
        kill();
      } else chunks.push(c);
    });
    const done = new Promise<void>((resolve) => {
      child.on("error", () => finish(false));
      child.on("close", (code) => finish(code === 0));
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        if (space.reader?.done !== done) return resolve(); // already finished
        space.reader = undefined;
        const text = new TextDecoder("latin1").decode(concatBytes(chunks));
        if (ok && !over && /\bshmid\b/.test(text.split("\n", 1)[0])) {
          space.bytes = parseSysvShm(text).reduce((n, s) => n + s.bytes, 0);
          space.failures = 0;
        } else if (!this.#closed) failedReading(space);
        resolve();
      };
    });
    space.reader = { kill, done };
  }

  /**
   * Member `pid`'s IPC namespace (and its user namespace when it is not toolhost's),
   * opened: `[ipc]` or `[ipc, user]`; undefined when the IPC one is not `id` or the
   * member is not the process started at `startTime` after the opens.
   */
  #pin(pid: number, startTime: number, id: number): number[] | undefined {
    const fds: number[] = [];
    try {
      fds.push(openSync(`/proc/${pid}/ns/ipc`, "r"));
      if (fstatSync(fds[0]).ino === id) {
        const user = openSync(`/proc/${pid}/ns/user`, "r");
        if (fstatSync(user).ino !== this.#ownUser) fds.push(user);
        else closeQuietly(user);
        if (readProcStat(pid)?.startTime === startTime) return fds;
      }
    } catch { /* ended */ }
    for (const fd of fds) closeQuietly(fd);
    return undefined;
  }
}

/** Count a failed reading of `space`; the last one allowed makes it unmeasurable. */
function failedReading(space: Space): void {
  space.failures++;
  if (space.failures >= MAX_FAILED_READINGS) space.failed = true;
}

/** Close `fd`, ignoring errors. */
function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch { /* closed already */ }
}
