/**
 * NamespaceShm reads the System V table of an IPC namespace that is not toolhost's (a
 * sandbox's) from inside it, and fails closed when it cannot: no helper, or a reading
 * that fails while the member it entered through lives on. toolhost's own namespace is
 * never read by it (sysv_shm.ts reads that one).
 */

import assert from "node:assert/strict";
import process from "node:process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { NamespaceShm } from "../../lib/limits/namespace_shm.ts";
import { readProcStat } from "../../lib/process/proc_identity.ts";
import { printSkip, skipReason } from "../sandbox/_corpus.ts";

const skip = skipReason();

// 4 MiB in one segment, filled and detached, then "ready" and sleep.
const HOLD =
  'my $id = shmget(0, 4 << 20, 01600) // die; shmwrite($id, "x" x (4 << 20), 0, 4 << 20) ' +
  'or die; $| = 1; print "ready\\n"; sleep 300 while 1;';

const ipcNs = (pid: number | "self") => statSync(`/proc/${pid}/ns/ipc`).ino;

/** The first descendant of `pid` in another IPC namespace than this process's. */
function foreignDescendant(pid: number): number | undefined {
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const kids = readFileSync(`/proc/${pid}/task/${task}/children`, "latin1").trim();
    for (const k of kids ? kids.split(" ").map(Number) : []) {
      if (ipcNs(k) !== ipcNs("self")) return k;
      const below = foreignDescendant(k);
      if (below !== undefined) return below;
    }
  }
  return undefined;
}

/** Visit `pid` on full rounds until `done` holds for what it returns. */
async function visitUntil(
  ns: NamespaceShm,
  pid: number,
  done: (v: number | undefined) => boolean,
): Promise<number | undefined> {
  const startTime = readProcStat(pid)!.startTime;
  for (;;) {
    ns.begin();
    const v = ns.visit(pid, startTime);
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Run `body` with the pid of a process inside a bwrap sandbox (its own user, IPC and pid
 * namespaces) that holds HOLD's 4 MiB segment; the sandbox is killed and awaited after.
 */
async function withHoldingSandbox(body: (pid: number) => Promise<void>): Promise<void> {
  const child = new Deno.Command("bwrap", {
    args: ["--unshare-user", "--unshare-ipc", "--unshare-pid", "--die-with-parent"]
      .concat(["--ro-bind", "/", "/", "--proc", "/proc", "--dev-bind", "/dev/null", "/dev/null"])
      .concat(["--", "perl", "-e", HOLD]),
    stdout: "piped",
    stderr: "null",
  }).spawn();
  try {
    const reader = child.stdout.getReader();
    assert.equal(new TextDecoder().decode((await reader.read()).value), "ready\n");
    reader.releaseLock();
    const pid = foreignDescendant(child.pid);
    assert.ok(pid !== undefined, "no process in the sandbox's IPC namespace");
    await body(pid);
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* ended already */ }
    await child.stdout.cancel().catch(() => {});
    await child.status;
  }
}

Deno.test("NamespaceShm: a sandbox's segments are read from inside its namespace; unreadable fails closed", async () => {
  if (skip) return printSkip("IPC namespace reading", skip);
  const own = new NamespaceShm();
  own.begin();
  assert.equal(own.visit(process.pid, readProcStat(process.pid)!.startTime), 0);
  await own.close();

  await withHoldingSandbox(async (pid) => {
    const ns = new NamespaceShm();
    assert.equal(await visitUntil(ns, pid, (v) => v !== 0), 4 << 20);
    await ns.close();

    // A reading that fails while its member lives on: the namespace is unmeasurable.
    const failing = new NamespaceShm({ nsenter: "/bin/false", cat: "/bin/cat" });
    assert.equal(await visitUntil(failing, pid, (v) => v !== 0), undefined);
    await failing.close();
    // No helper to read it with: unmeasurable at once.
    const none = new NamespaceShm({});
    none.begin();
    assert.equal(none.visit(pid, readProcStat(pid)!.startTime), undefined);
  });
});

// HOLD's segment, then a second process in the namespace: "ready" once both are there.
const TWO =
  'my $id = shmget(0, 4 << 20, 01600) // die; shmwrite($id, "x" x (4 << 20), 0, 4 << 20) ' +
  'or die; $| = 1; my $k = fork // die; if ($k) { print "$k\\n"; } sleep 300 while 1;';

/** A stand-in for nsenter that waits for `dir`/gate on its first run and fails after. */
function gatedNsenter(dir: string): string {
  const script = `${dir}/nsenter`;
  Deno.writeTextFileSync(
    script,
    `#!/bin/sh\n[ -e ${dir}/used ] && exit 1\n: > ${dir}/used\n` +
      `while [ ! -e ${dir}/gate ]; do /bin/sleep 0.01; done\nexec /usr/bin/nsenter "$@"\n`,
  );
  Deno.chmodSync(script, 0o755);
  return script;
}

Deno.test("NamespaceShm: a reading counts the namespace it entered even when its member ends during it", async () => {
  if (skip) return printSkip("IPC namespace reading", skip);
  const dir = Deno.makeTempDirSync();
  const { spawn } = await import("node:child_process");
  const first = spawn("unshare", ["--user", "--map-root-user", "--ipc", "perl", "-e", TWO], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  let second: number | undefined;
  try {
    const line = await new Promise<string>((resolve, reject) => {
      first.stdout!.once("data", (d: Uint8Array) => resolve(new TextDecoder().decode(d)));
      first.once("close", () => reject(new Error("the namespace did not start")));
    });
    second = Number(line.trim());
    const ns = new NamespaceShm({ nsenter: gatedNsenter(dir), cat: "/usr/bin/cat" });
    ns.begin();
    assert.equal(ns.visit(first.pid!, readProcStat(first.pid!)!.startTime), 0);
    // The reading started; its member ends before it enters anything.
    while (!existsSync(`${dir}/used`)) await new Promise((r) => setTimeout(r, 10));
    first.kill("SIGKILL");
    while (existsSync(`/proc/${first.pid}/ns/ipc`)) await new Promise((r) => setTimeout(r, 10));
    Deno.writeTextFileSync(`${dir}/gate`, "");
    // Any later reading fails (the stand-in fails), so only the first one can count.
    const startTime = readProcStat(second)!.startTime;
    let v: number | undefined = 0;
    while (v === 0) {
      await new Promise((r) => setTimeout(r, 10));
      ns.begin();
      v = ns.visit(second, startTime);
    }
    await ns.close();
    assert.equal(v, 4 << 20);
  } finally {
    first.kill("SIGKILL");
    if (second !== undefined) {
      try {
        process.kill(second, "SIGKILL");
      } catch { /* ended */ }
    }
    Deno.removeSync(dir, { recursive: true });
  }
});

/** A stand-in for nsenter that fails its first `fails` runs, then runs the real one. */
function flakyNsenter(dir: string, fails: number): string {
  const script = `${dir}/nsenter`;
  Deno.writeTextFileSync(
    script,
    `#!/bin/sh\nn=$(/bin/ls ${dir} | /usr/bin/wc -l)\n: > ${dir}/run$n\n` +
      `[ "$n" -le ${fails} ] && exit 1\nexec /usr/bin/nsenter "$@"\n`,
  );
  Deno.chmodSync(script, 0o755);
  return script;
}

Deno.test("NamespaceShm: one failed reading is not a stop, three in a row are", async () => {
  if (skip) return printSkip("IPC namespace reading", skip);
  const dirs = [Deno.makeTempDirSync(), Deno.makeTempDirSync()];
  try {
    await withHoldingSandbox(async (pid) => {
      // The first reading fails (a namespace read in the instant it was made): measured after.
      const once = new NamespaceShm({ nsenter: flakyNsenter(dirs[0], 1), cat: "/usr/bin/cat" });
      assert.equal(await visitUntil(once, pid, (v) => v !== 0), 4 << 20);
      await once.close();
      // Every reading fails: unmeasurable, after exactly three of them.
      const always = new NamespaceShm({
        nsenter: flakyNsenter(dirs[1], 1000),
        cat: "/usr/bin/cat",
      });
      assert.equal(await visitUntil(always, pid, (v) => v !== 0), undefined);
      await always.close();
      assert.equal(readdirSync(dirs[1]).filter((f) => f.startsWith("run")).length, 3);
    });
  } finally {
    for (const d of dirs) Deno.removeSync(d, { recursive: true });
  }
});
