/**
 * runCaptured (git tools, shell_exec) reads a child's output even when the child exits
 * before the spawn has returned (its journaling awaited, a loaded machine): child_process
 * discards the unread output of a child that exits with nobody reading, so the readers
 * must be attached at the spawn itself. Lost, git's config listing read as empty and its
 * refusal of program-running keys was skipped.
 */

import assert from "node:assert/strict";
import { processExited } from "../helpers/live_processes.ts";
import { runCaptured } from "../../lib/native/capture.ts";

Deno.test("runCaptured keeps the output of a child that exited before the spawn returned", async () => {
  let waited = false;
  const r = await runCaptured({
    command: "/bin/sh",
    args: ["-c", "echo out; echo err >&2"],
    cwd: "/",
    env: { PATH: "/usr/bin:/bin" },
    timeoutMs: 60_000,
    retainBytes: 1024,
    callDirs: {
      // The journaling is slow: the child has exited, and its exit been handled, by then.
      admit: (async (record: { pid: number }) => {
        await processExited(record.pid);
        for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 10));
        waited = true;
      }) as unknown as () => void,
    },
  });
  assert.ok(waited);
  assert.equal(r.exitCode, 0);
  assert.equal(new TextDecoder().decode(r.stdout), "out\n");
  assert.equal(new TextDecoder().decode(r.stderr), "err\n");
});
