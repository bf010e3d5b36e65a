/**
 * The last-resort net (lib/process/last_resort.ts) on every way out of a program that
 * left a process group running: `Deno.exit()` (which fires the web `unload` event and
 * never Node's `exit`), `process.exit()` on Deno, and `process.exit()` on Node, where the
 * global scope is no event target.
 */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { liveGroupMembers, type ProcessRecord } from "../../lib/process/proc_identity.ts";
import { terminateGroup } from "../../lib/process/kill_group.ts";

const LIB = new URL("../../lib/", import.meta.url).pathname;

// Starts a group (a shell and two sleeps), prints its record, then leaves as told.
const ENTRY = `
import process from "node:process";
import { spawnGroup } from "${LIB}process/spawn_group.ts";
const h = await spawnGroup({
  command: "/bin/sh",
  args: ["-c", "sleep 1000 & sleep 1000 & wait"],
  cwd: "/",
  env: { PATH: "/usr/bin:/bin" },
});
h.stdout.resume();
h.stderr.resume();
console.log(JSON.stringify(h.record));
const how = process.argv[2];
const g = globalThis as unknown as { Deno?: { exit(code: number): never } };
if (how === "deno-exit") g.Deno!.exit(0);
process.exit(0);
`;

function nodeAvailable(): boolean {
  try {
    return new Deno.Command("node", { args: ["--version"], stdout: "null" }).outputSync().success;
  } catch {
    return false;
  }
}

/** Run `argv`, expect it to exit 0 having printed a group record; return the record. */
async function leftGroup(program: string, argv: string[]): Promise<ProcessRecord> {
  const out = await new Deno.Command(program, { args: argv, stdout: "piped", stderr: "piped" })
    .output();
  const dec = new TextDecoder();
  assert.equal(out.code, 0, dec.decode(out.stderr));
  return JSON.parse(dec.decode(out.stdout).trim()) as ProcessRecord;
}

async function assertNetEnded(record: ProcessRecord): Promise<void> {
  try {
    // SIGKILL was sent before the owner exited; give the kernel a moment to finish it.
    const deadline = Date.now() + 60_000; // a cap, not a timing assertion
    while (liveGroupMembers(record.pgid).members.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(
      liveGroupMembers(record.pgid).members.map((p) => p.pid),
      [],
      "the group outlived its owner",
    );
  } finally {
    await terminateGroup(record, { graceMs: 0 });
  }
}

async function withEntry(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-last-resort-"));
  try {
    writeFileSync(join(dir, "entry.ts"), ENTRY);
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

Deno.test("Deno.exit() ends the process groups the program left running", async () => {
  await withEntry(async (dir) => {
    const record = await leftGroup(Deno.execPath(), [
      "run",
      "-A",
      join(dir, "entry.ts"),
      "deno-exit",
    ]);
    await assertNetEnded(record);
  });
});

Deno.test("process.exit() on Deno ends the process groups the program left running", async () => {
  await withEntry(async (dir) => {
    const record = await leftGroup(Deno.execPath(), ["run", "-A", join(dir, "entry.ts"), "exit"]);
    await assertNetEnded(record);
  });
});

Deno.test({
  name: "process.exit() on Node ends the process groups the program left running",
  ignore: !nodeAvailable(),
  async fn() {
    await withEntry(async (dir) => {
      const bundle = await new Deno.Command(Deno.execPath(), {
        args: [
          "bundle",
          "--quiet",
          "--platform",
          "node",
          "-o",
          join(dir, "entry.mjs"),
          join(dir, "entry.ts"),
        ],
        stdout: "null",
        stderr: "piped",
      }).output();
      assert.ok(bundle.success, new TextDecoder().decode(bundle.stderr));
      const record = await leftGroup("node", [join(dir, "entry.mjs"), "exit"]);
      await assertNetEnded(record);
    });
  },
});
