/**
 * A forged or huge state directory cannot make a sweep slow or memory-hungry, and what a
 * bound leaves unchecked is reported, never taken as clean: a journal of 100k garbage or
 * leaderless lines, an over-long line, a group whose members cannot be scanned within the
 * budget, a `calls` folder with more entries than the listing budget, a sweep out of time.
 * Outcomes are asserted, not durations (timing belongs in the bench).
 */

import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { currentBootId, readProcStat } from "../../lib/process/proc_identity.ts";
import { spawnGroup } from "../../lib/process/spawn_group.ts";
import {
  inspectJournal,
  MAX_JOURNAL_GROUPS,
  MAX_LINE_BYTES,
  readJournalFile,
} from "../../lib/sessions/journal_read.ts";
import { sweepSessions } from "../../lib/sessions/sweep.ts";
import { admitLine, forgeFolder, running, spyTerminator, withState } from "./_forge.ts";

const ROOT = "00000000000000bb";
const CALL = "0123456789abcdef0123456b";
const BOOT = currentBootId()!;
const TAG = "0123456789abcdef0123456789abcdef";

/** `n` well-formed admissions of groups that do not exist (distinct pids, leaderless). */
function leaderless(n: number): string[] {
  return Array.from(
    { length: n },
    (_, i) =>
      admitLine({ pid: 4_000_000 + i, pgid: 4_000_000 + i, startTime: 1, bootId: BOOT, tag: TAG }),
  );
}

Deno.test("a forged journal of 100k leaderless admissions stops at its bound and is kept", async () => {
  await withState(async (state) => {
    const lines = [...leaderless(100_000), "not json", "[1,2]", '{"op":"forge"}'];
    const root = forgeFolder(state, "sessions", ROOT, lines);
    const j = await readJournalFile(join(root, "journal.jsonl"));
    assert.equal(j.overfull, true);
    assert.equal(j.entries.length, MAX_JOURNAL_GROUPS, "the read tracked more than its bound");
    const spy = spyTerminator();
    const report = await sweepSessions(state, { graceMs: 0, terminate: spy.terminate });
    assert.deepEqual(spy.asked, [], "a forged leaderless entry was asked to be terminated");
    assert.equal(report.failed, 1, "an overfull journal was taken as handled");
    assert.equal(report.swept, 0);
    assert.ok(existsSync(root), "the folder of an overfull journal was removed");
    assert.match(
      report.problems.join("\n"),
      new RegExp(`more than ${MAX_JOURNAL_GROUPS} unfinished process groups`),
    );
  });
});

Deno.test("100k garbage lines are skipped, counted and reported", async () => {
  await withState(async (state) => {
    const garbage = Array.from(
      { length: 100_000 },
      (_, i) => i % 3 === 0 ? `garbage ${i}` : i % 3 === 1 ? "{" : `{"op":"noise","n":${i}}`,
    );
    const root = forgeFolder(state, "sessions", ROOT, garbage);
    const report = await sweepSessions(state, { graceMs: 0 });
    assert.equal(report.failed, 0, report.problems.join("\n"));
    assert.equal(report.swept, 1);
    assert.equal(existsSync(root), false);
    assert.deepEqual(report.problems, [
      `session ${ROOT}: 100000 malformed journal line(s) were skipped`,
    ]);
  });
});

Deno.test("an over-long line is skipped whole and counted once; a torn last line is not", () => {
  const ok = admitLine({ pid: 7, pgid: 7, startTime: 1, bootId: "b", tag: TAG });
  const long = `{"op":"admit","pad":"${"x".repeat(MAX_LINE_BYTES * 4)}"}`;
  const j = inspectJournal(`${long}\n${ok}\n`);
  assert.equal(j.malformed, 1);
  assert.deepEqual(j.entries.map((e) => e.record.pid), [7]);
  const torn = inspectJournal(`${ok}\n{"op":"adm`);
  assert.equal(torn.malformed, 1, "inspectJournal parses a text's last line");
});

Deno.test("a torn last line in a journal file is dropped without a problem", async () => {
  await withState(async (state) => {
    const root = join(state, "calls", CALL);
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "owner.json"), JSON.stringify({ pid: 4_194_305, startTime: 1 }));
    writeFileSync(join(root, "journal.jsonl"), '{"op":"retire","pid":7,"startTime":1}\n{"op":"ad');
    const j = await readJournalFile(join(root, "journal.jsonl"));
    assert.equal(j.malformed, 0);
    assert.equal(j.overfull, false);
  });
});

Deno.test("a recorded group that cannot be scanned within the budget is kept, not signalled", async () => {
  // A group whose leader exited while a member runs on: judged by a /proc scan of members.
  const h = await spawnGroup({
    command: "/bin/sh",
    args: ["-c", "/bin/sleep 60 & echo $!"],
    cwd: "/",
    env: {},
  });
  h.stderr.resume();
  let out = "";
  h.stdout.on("data", (c) => (out += c));
  await h.exited;
  const member = Number(out.trim());
  try {
    await withState(async (state) => {
      const { pid, startTime } = h.record;
      const line = admitLine({ pid, pgid: pid, startTime, bootId: BOOT, tag: h.tag });
      const root = forgeFolder(state, "calls", CALL, [line]);
      const report = await sweepSessions(state, { graceMs: 0, scan: { maxEntries: 1 } });
      assert.equal(report.failed, 1, "a group not seen whole was taken as handled");
      assert.ok(existsSync(root), "the folder of an unchecked group was removed");
      assert.match(report.problems.join("\n"), /could not be checked within the scan budget/);
      assert.ok(running(member), "a group not seen whole was signalled");
      assert.equal(readProcStat(member)?.pgrp, pid);
      // With room to look, the next sweep ends it and removes the folder.
      const again = await sweepSessions(state, { graceMs: 0 });
      assert.deepEqual([again.failed, again.calls], [0, 1], again.problems.join("\n"));
      assert.equal(running(member), false);
    });
  } finally {
    await h.terminate({ graceMs: 0 });
  }
});

Deno.test("a state folder past its listing budget is reported, not swept as clean", async () => {
  await withState(async (state) => {
    const calls = join(state, "calls");
    mkdirSync(calls, { recursive: true });
    for (let i = 0; i < 300; i++) writeFileSync(join(calls, `junk-${i}`), "");
    const report = await sweepSessions(state, { graceMs: 0, maxEntries: 50 });
    assert.equal(report.failed, 1);
    assert.match(report.problems.join("\n"), /calls folder has more than 50 entries/);
    const whole = await sweepSessions(state, { graceMs: 0 });
    assert.equal(whole.failed, 0, whole.problems.join("\n"));
  });
});

Deno.test("folders a sweep out of time never looked at are reported", async () => {
  await withState(async (state) => {
    const root = forgeFolder(state, "sessions", ROOT, []);
    const report = await sweepSessions(state, { graceMs: 0, maxMs: 0 });
    assert.equal(report.failed, 1);
    assert.deepEqual(report.problems, [
      "1 session folder(s) were not looked at: the sweep ran out of time; sweep again",
    ]);
    assert.ok(existsSync(root));
    assert.equal((await sweepSessions(state, { graceMs: 0 })).swept, 1);
  });
});

Deno.test("a record with a nested field still reads back; unparsable lines stay malformed", () => {
  const nested = admitLine({ pid: 7, pgid: 7, startTime: 1, bootId: "b", tag: TAG, x: { y: 1 } });
  const lines = [nested, ...Array.from({ length: 5000 }, (_, i) => `{"op":"admit" ${i}}`)];
  const j = inspectJournal(`${lines.join("\n")}\n`);
  assert.deepEqual(j.entries.map((e) => e.record.pid), [7]);
  assert.equal(j.malformed, 5000);
});
