/**
 * A journal line is the only trace a crashed toolhost leaves of a process group, so
 * `admit` must not return until the whole line is written. On a nearly full file system
 * a write can store part of the line and report success for that part; the rest then
 * fails with ENOSPC. `admit` throws (the group is refused), and the line after a cut one
 * starts on a line of its own, so a later admission is still read back.
 *
 * Needs a small tmpfs of its own (root only); skipped elsewhere.
 */

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { Journal, parseJournal } from "../../lib/sessions/journal.ts";

function mountTmpfs(dir: string, size: string): boolean {
  const r = new Deno.Command("mount", { args: ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir] })
    .outputSync();
  return r.success;
}

const canMount = (() => {
  if (process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(join(tmpdir(), "th-mnt-"));
  try {
    if (!mountTmpfs(probe, "16k")) return false;
    new Deno.Command("umount", { args: [probe] }).outputSync();
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();

const record = (pid: number) => ({
  pid,
  pgid: pid,
  startTime: 1000 + pid,
  bootId: "b",
  tag: "0123456789abcdef0123456789abcdef",
});

Deno.test({
  name: "admit throws on a cut write; the next admission still reads back",
  ignore: !canMount,
  fn: () => {
    const dir = mkdtempSync(join(tmpdir(), "th-full-"));
    assert.ok(mountTmpfs(dir, "16k"));
    try {
      const path = join(dir, "journal.jsonl");
      const journal = Journal.open(path);
      journal.admit("call", record(2)); // the journal's page is in use, mostly free
      // Fill the rest of the file system: later lines fill that page, then one is cut.
      const filler = join(dir, "filler");
      let size = 64 * 1024;
      for (; size > 0; size -= 512) {
        try {
          writeFileSync(filler, new Uint8Array(size));
          break;
        } catch {
          try {
            unlinkSync(filler);
          } catch { /* not written */ }
        }
      }
      let cut = false;
      const admitted: number[] = [];
      for (let pid = 10; pid < 400 && !cut; pid++) {
        try {
          journal.admit("call", record(pid));
          admitted.push(pid);
        } catch {
          cut = true;
        }
      }
      assert.ok(cut, "the disk never filled");
      unlinkSync(filler); // room again
      journal.admit("call", record(7));
      journal.close();
      const pids = parseJournal(readFileSync(path, "utf8")).map((e) => e.record.pid);
      // Every admission that returned is on disk whole; so is the one after the cut line.
      assert.deepEqual(admitted.filter((p) => !pids.includes(p)), []);
      assert.ok(pids.includes(7), "the admission after a cut line is lost");
    } finally {
      new Deno.Command("umount", { args: [dir] }).outputSync();
      rmSync(dir, { recursive: true, force: true });
    }
  },
});
