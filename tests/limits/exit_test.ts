/**
 * When toolhost exits in the middle of a limited call, the last-resort net also kills the
 * descendants only the limits' tracker knows: here a child that left the session and
 * cleared its environment (no group tag), which neither the group kill nor the tag reaper
 * can find.
 */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { currentEnforcement, enforcementLabel } from "../../lib/limits/enforcement.ts";
import { liveWith } from "../helpers/live_processes.ts";

const LIB = new URL("../../lib/", import.meta.url).pathname;

// Runs a limited call whose child escapes, waits until the child runs and the watchdog
// has ticked since, then exits without cleaning up.
const ENTRY = `
import { readdirSync, readFileSync } from "node:fs";
import { openGuard } from "${LIB}limits/guard.ts";
import { runBounded } from "${LIB}process/run.ts";
const marker = Deno.args[0];
const g = await openGuard({ maxProcesses: 8 });
if (!g.ok) throw new Error(g.reason);
void runBounded({
  command: "/bin/sh",
  args: ["-c", "setsid env -i /usr/bin/perl -e 'sleep 300 while 1' " + marker + " & wait"],
  cwd: "/",
  env: { PATH: "/usr/bin:/bin" },
  guard: g.guard,
});
const running = () => readdirSync("/proc").some((p) => {
  try { return readFileSync("/proc/" + p + "/cmdline", "latin1").includes(marker); } catch { return false; }
});
while (!running()) await new Promise((r) => setTimeout(r, 10));
// Let the watchdog walk the tree: its 10 ms interval is due before each of these timeouts,
// so it ticks in (nearly) every turn however late a busy machine runs them. Counted turns,
// not a clock: a late wake-up still gives it its ticks.
for (let i = 0; i < 50; i++) await new Promise((r) => setTimeout(r, 10));
Deno.exit(0);
`;

const enforcement = currentEnforcement();
if (enforcement.mode === "none") {
  console.log(`SKIP exit test: ${enforcementLabel(enforcement)}`);
}

Deno.test({
  name: "exiting mid-call kills a descendant that left the session and dropped its environment",
  ignore: enforcement.mode === "none",
  async fn() {
    const dir = mkdtempSync(join(tmpdir(), "toolhost-limits-exit-"));
    const marker = `toolhost-exit-marker-${crypto.randomUUID()}`;
    try {
      writeFileSync(join(dir, "entry.ts"), ENTRY);
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", join(dir, "entry.ts"), marker],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      // SIGKILL was sent before the program exited; give the kernel a moment to finish it.
      for (let i = 0; i < 150 && liveWith(marker).length > 0; i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.deepEqual(liveWith(marker), [], "the escaped child outlived toolhost");
    } finally {
      for (const pid of liveWith(marker)) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch { /* gone */ }
      }
      rmSync(dir, { recursive: true, force: true });
    }
  },
});
