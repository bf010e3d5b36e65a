/**
 * Processes found by their command line, for tests that must prove nothing a tool started
 * is left running (and must not leave anything on a shared machine when they fail).
 */

/** Running (non-zombie) processes other than this one whose command line has `marker`. */
export function liveWith(marker: string): number[] {
  const out: number[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name) || Number(e.name) === Deno.pid) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      const state = stat.slice(stat.lastIndexOf(")") + 2)[0];
      if (state !== "Z" && Deno.readTextFileSync(`/proc/${e.name}/cmdline`).includes(marker)) {
        out.push(Number(e.name));
      }
    } catch { /* gone */ }
  }
  return out;
}

/**
 * Wait until no process mentions `marker` (a SIGKILLed process takes a moment to end on a
 * loaded machine); gives up after `polls` looks 50 ms apart, returning what is left.
 */
export async function goneWith(marker: string, polls = 400): Promise<number[]> {
  let left = liveWith(marker);
  for (let i = 0; i < polls && left.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 50));
    left = liveWith(marker);
  }
  return left;
}

/** Whatever a broken enforcement left behind must not stay on a shared machine. */
export function killAll(marker: string): void {
  for (let i = 0; i < 5; i++) {
    const left = liveWith(marker);
    if (left.length === 0) return;
    for (const pid of left) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* gone */ }
    }
  }
}

/** Resolves once `pid` has exited (a zombie or gone), looking every 10 ms. */
export async function processExited(pid: number): Promise<void> {
  for (;;) {
    let state = "";
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      state = stat.slice(stat.lastIndexOf(")") + 2)[0];
    } catch {
      return;
    }
    if (state === "Z" || state === "X") return;
    await new Promise((r) => setTimeout(r, 10));
  }
}
