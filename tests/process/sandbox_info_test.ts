/**
 * What bwrap reports on `--info-fd` is untrusted input of a kind (a pipe's bytes): only a
 * complete, well-formed report names an init, and a pid that now belongs to a process in
 * another PID namespace is never taken for that init (nor signalled).
 */

import assert from "node:assert/strict";
import { readlinkSync } from "node:fs";
import { Buffer } from "node:buffer";
import { Readable } from "node:stream";
import {
  endInit,
  initState,
  parseSandboxInfo,
  readSandboxInfo,
} from "../../lib/process/sandbox_info.ts";

const REPORT =
  '{\n    "child-pid": 4242,\n    "mnt-namespace": 7,\n    "pid-namespace": 4026532181\n}\n';

Deno.test("parseSandboxInfo: bwrap's report names the init; anything else names nothing", () => {
  assert.deepEqual(parseSandboxInfo(REPORT), { pid: 4242, pidNs: 4026532181 });
  for (
    const bad of [
      "",
      "{",
      "null",
      "[]",
      '{"child-pid": 4242}',
      '{"pid-namespace": 5}',
      '{"child-pid": 1, "pid-namespace": 5}',
      '{"child-pid": 0, "pid-namespace": 5}',
      '{"child-pid": -7, "pid-namespace": 5}',
      '{"child-pid": 4.5, "pid-namespace": 5}',
      '{"child-pid": "4242", "pid-namespace": 5}',
      '{"child-pid": 4242, "pid-namespace": 0}',
    ]
  ) {
    assert.equal(parseSandboxInfo(bad), undefined, bad);
  }
});

Deno.test("readSandboxInfo: a report split across chunks is read; an oversized one is not", async () => {
  const half = REPORT.length >> 1;
  const split = Readable.from(
    [REPORT.slice(0, half), REPORT.slice(half)].map((s) => Buffer.from(s)),
  );
  assert.deepEqual(await readSandboxInfo(split), { pid: 4242, pidNs: 4026532181 });
  const flood = Readable.from([Buffer.alloc(8192, 0x20), Buffer.from(REPORT)]);
  assert.equal(await readSandboxInfo(flood), undefined);
  assert.equal(await readSandboxInfo(Readable.from([])), undefined);
});

Deno.test("initState: a live pid in another PID namespace is a reused pid, never our init", async () => {
  const ns = Number(/\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))![1]);
  // This process, named with its own PID namespace, runs; named with another, it is not
  // the init of that namespace — and endInit leaves it alone.
  assert.equal(initState({ pid: Deno.pid, pidNs: ns }), "running");
  const sleeper = new Deno.Command("sleep", { args: ["1000"] }).spawn();
  try {
    assert.equal(initState({ pid: sleeper.pid, pidNs: ns + 1 }), "ended");
    assert.equal(await endInit({ pid: sleeper.pid, pidNs: ns + 1 }, 100), true);
    assert.equal(initState({ pid: sleeper.pid, pidNs: ns }), "running", "it was signalled");
  } finally {
    sleeper.kill("SIGKILL");
    await sleeper.status;
  }
  assert.equal(initState({ pid: 999_999_999, pidNs: ns }), "ended");
});
