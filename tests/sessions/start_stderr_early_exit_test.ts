/**
 * A session's start command that fails at once keeps its error output for `--stderr`:
 * the copy is attached at the spawn, before the wait for the child's session and its
 * journal record. child_process discards the unread output of a child that exits with
 * nobody reading (see tests/native/capture_early_exit_test.ts for the git tools' case).
 */

import assert from "node:assert/strict";
import { processExited } from "../helpers/live_processes.ts";
import { spawnStart } from "../../lib/sessions/startup.ts";
import type { Journal } from "../../lib/sessions/journal.ts";

Deno.test("a start command's stderr is copied even when it exited before the spawn returned", async () => {
  let waited = false;
  const journal = {
    // The journal record is slow: the child has exited, and its exit been handled, by then.
    admit: async (_role: string, record: { pid: number }) => {
      await processExited(record.pid);
      for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 10));
      waited = true;
    },
  } as unknown as Journal;
  const copied: Uint8Array[] = [];
  const r = await spawnStart(
    {
      command: "/bin/sh",
      args: ["-c", "echo start-failed-marker >&2; exit 3"],
      cwd: "/",
      env: { PATH: "/usr/bin:/bin" },
      stdin: "{}",
    },
    journal,
    new AbortController().signal,
    undefined,
    undefined,
    { stderr: (c) => copied.push(c) },
  );
  assert.ok(r.ok);
  assert.ok(waited);
  const readiness = await r.readiness;
  assert.equal(readiness.kind, "exited");
  await r.handle.exited;
  // The copy's stream ends with the child; wait for it rather than for a clock.
  if (!r.handle.stderr.readableEnded && !r.handle.stderr.destroyed) {
    await new Promise((res) => {
      r.handle.stderr.once("end", res);
      r.handle.stderr.once("close", res);
    });
  }
  const text = new TextDecoder().decode(new Uint8Array(copied.flatMap((c) => [...c])));
  assert.equal(text, "start-failed-marker\n");
});
