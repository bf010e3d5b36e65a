/**
 * A dead man's switch for sandboxes and extension servers: one small `/bin/sh` watcher per
 * toolhost process, in a session of its own, that holds the read end of a pipe toolhost
 * alone writes to. Each confined group's id (and each extension server's, confined or not:
 * no journal names an extension for a sweep) is written to it when the group is spawned
 * and struck off when the group is gone; an unconfined call's group only until it is
 * journaled. When toolhost dies — `kill -9` included — the kernel closes the
 * write end, the watcher reads end-of-file and SIGKILLs every group still listed; killing
 * a sandbox's group kills its PID namespace's init, and with it every process inside.
 *
 * Why: `bwrap --die-with-parent` arms `PR_SET_PDEATHSIG` only after `clone`, in the outer
 * process and (later, after the mounts are set up) in the namespace's init. A toolhost
 * killed inside that window leaves the sandbox running (bubblewrap issue #633). The pipe
 * has no window: end-of-file comes whenever toolhost dies, before or after the watcher
 * starts reading.
 *
 * @module
 */

import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readdirSync, readlinkSync, writeSync } from "node:fs";
import { GROUP_TAG_VAR } from "./escape_reaper.ts";
import { noteOwnChild } from "./adopted.ts";

/**
 * The watcher. Lines: `+ TAG` (a group is about to be spawned), `= TAG PID` (it was,
 * as group PID), `- TAG` (it is gone). On end-of-file: SIGKILL each listed group, then
 * every process (and the group it leads) whose `/proc/<pid>/environ` carries a listed
 * group's `_TOOLHOST_GROUP_TAG` — one that never got its PID (a toolhost killed between
 * the spawn and the `=` line), and a descendant that left its group with `setsid` (an
 * unconfined extension server's: no journal names it for a sweep) — in rounds, at most
 * 8, until none is found.
 *
 * The listed groups are kept in 16 lists, by their tag's first hex digit, each a string of
 * `TAG:PID` entries (`TAG:0` until bound; a bound tag keeps both), and an entry is struck
 * off by a pass over its list. dash's `${v#*pattern}` costs the square of the match's
 * position: with one list, the 2,100 lines of 700 calls (up to 250 at once) took the
 * watcher 12.9 s of CPU, long after toolhost had written them and on a core toolhost
 * needed; with 16, 0.05 s.
 */
const WATCHER = `trap '' HUP INT TERM PIPE
set -f
for c in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do eval "l_$c=' '"; done
while read -r op t p; do
  case "$t" in ''|*[!0-9a-f]*) continue ;; esac
  c=\${t%"\${t#?}"}
  eval "l=\\$l_$c"
  case "$op" in
    +) l="$l$t:0 " ;;
    =) case "$p" in ''|*[!0-9]*) continue ;; esac
       case "$l" in *" $t:0 "*) l="$l$t:$p " ;; *) continue ;; esac ;;
    -) case "$l" in *" $t:"*) ;; *) continue ;; esac
       n=' '
       for e in $l; do [ "\${e%%:*}" = "$t" ] || n="$n$e "; done
       l=$n ;;
    *) continue ;;
  esac
  eval "l_$c=\\$l"
done
set +f
pats=''
for c in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do
  eval "l=\\$l_$c"
  for e in $l; do
    t="\${e%%:*}"; p="\${e#*:}"
    pats="$pats -e $1=$t"
    if [ "$p" != 0 ]; then kill -9 -"$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; fi
  done
done
[ -n "$pats" ] || exit 0
n=0
while [ "$n" -lt 8 ]; do
  n=$((n + 1))
  q=$(grep -l -a -F $pats /proc/[0-9]*/environ 2>/dev/null | sed -n 's|^/proc/\\([0-9]*\\)/environ$|\\1|p')
  [ -n "$q" ] || break
  for r in $q; do kill -9 -"$r" 2>/dev/null; kill -9 "$r" 2>/dev/null; done
done
`;

interface Watcher {
  child: ChildProcess;
  /** A synchronous writer of one line, or undefined when the pipe broke. */
  write: (line: string) => boolean;
}

let watcher: Watcher | undefined;
/** Armed groups: tag → leader PID (0 until bound). */
const armed = new Map<string, number>();

/** An fd of this process open on the same pipe as the child's stdin, reopened for writing. */
function reopenPipe(childPid: number): number | undefined {
  let target: string;
  try {
    target = readlinkSync(`/proc/${childPid}/fd/0`);
  } catch {
    return undefined;
  }
  if (!target.startsWith("pipe:")) return undefined; // Node gives a socketpair
  let n = 0;
  for (const name of readdirSync("/proc/self/fd")) {
    if (++n > 65_536) break;
    try {
      if (readlinkSync(`/proc/self/fd/${name}`) === target) {
        return openSync(`/proc/self/fd/${name}`, "w"); // O_CLOEXEC: no child inherits it
      }
    } catch { /* closed meanwhile */ }
  }
  return undefined;
}

function startWatcher(): Watcher | undefined {
  let child: ChildProcess;
  try {
    child = spawn("/bin/sh", ["-c", WATCHER, "toolhost-dead-man", GROUP_TAG_VAR], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
      env: { PATH: "/usr/bin:/bin" },
      windowsHide: true,
    });
    noteOwnChild(child.pid, false); // synchronously: never taken for an adopted orphan
  } catch {
    return undefined;
  }
  if (child.pid === undefined) return undefined;
  child.on("error", () => {});
  const stdin = child.stdin!;
  stdin.on("error", () => {});
  const fd = reopenPipe(child.pid);
  let write: Watcher["write"];
  if (fd !== undefined) {
    // Deno: a pipe, reopened; writes reach the kernel before this call returns.
    stdin.destroy();
    write = (line) => {
      try {
        writeSync(fd, line);
        return true;
      } catch {
        try {
          closeSync(fd);
        } catch { /* already */ }
        return false;
      }
    };
  } else {
    // Node: a socketpair; libuv writes at once when nothing is queued.
    (stdin as unknown as { unref?: () => void }).unref?.();
    write = (line) => !stdin.destroyed && (stdin.write(line), true);
  }
  child.unref();
  child.once("exit", () => {
    if (watcher?.child === child) watcher = undefined;
  });
  return { child, write };
}

function send(line: string): void {
  for (let attempt = 0; attempt < 2; attempt++) {
    if (watcher === undefined) {
      watcher = startWatcher();
      if (watcher === undefined) return;
      // A new watcher knows nothing yet: tell it every group still armed, then stop.
      const all = [...armed].map(([t, p]) => `+ ${t}\n` + (p === 0 ? "" : `= ${t} ${p}\n`));
      if (watcher.write(all.join("") || "\n")) return;
      watcher = undefined;
      continue;
    }
    if (watcher.write(line)) return;
    watcher = undefined;
  }
}

const TAG = /^[0-9a-f]{1,64}$/;

/**
 * List the group tagged `tag` (its `_TOOLHOST_GROUP_TAG`) with the watcher, before it is
 * spawned: if this process dies before {@link disarmDeadMan}, the group is SIGKILLed.
 * Then {@link bindDeadMan} its leader's PID as soon as it is known.
 *
 * @example
 * ```ts
 * import { armDeadMan, bindDeadMan, disarmDeadMan } from "./dead_man.ts";
 * import { spawn } from "node:child_process";
 * armDeadMan("c0ffee");
 * const c = spawn("/bin/sleep", ["5"], { detached: true, env: { _TOOLHOST_GROUP_TAG: "c0ffee" } });
 * bindDeadMan("c0ffee", c.pid!);
 * c.kill("SIGKILL");
 * disarmDeadMan("c0ffee");
 * ```
 */
export function armDeadMan(tag: string): void {
  if (!TAG.test(tag) || armed.has(tag)) return;
  armed.set(tag, 0);
  send(`+ ${tag}\n`);
}

/**
 * Tell the watcher the leader PID (= process group id) of the armed group `tag`.
 *
 * @example
 * ```ts
 * import { bindDeadMan } from "./dead_man.ts";
 * bindDeadMan("c0ffee", 12345); // not armed: nothing happens
 * ```
 */
export function bindDeadMan(tag: string, pgid: number): void {
  if (armed.get(tag) !== 0 || !Number.isSafeInteger(pgid) || pgid <= 1) return;
  armed.set(tag, pgid);
  send(`= ${tag} ${pgid}\n`);
}

/**
 * Strike group `tag` off the watcher's list (the group has ended).
 *
 * @example
 * ```ts
 * import { disarmDeadMan } from "./dead_man.ts";
 * disarmDeadMan("c0ffee"); // a group that was never armed: nothing happens
 * ```
 */
export function disarmDeadMan(tag: string): void {
  if (!armed.delete(tag)) return;
  if (watcher !== undefined) send(`- ${tag}\n`);
}

/**
 * Host PID of the watcher, if one runs (tests).
 *
 * @example
 * ```ts
 * import { deadManPid } from "./dead_man.ts";
 * deadManPid(); // undefined until a confined group was armed
 * ```
 */
export function deadManPid(): number | undefined {
  return watcher?.child.pid;
}
