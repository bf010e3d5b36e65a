/**
 * The warm-sandbox waiter (lib/process/warm_script.ts), run by dash outside any sandbox:
 * every byte of every argument and environment value reaches the program unchanged, the
 * call fd is closed before the `exec`, a cut line runs nothing, and what dash cannot
 * export unchanged is refused (the call then runs cold).
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { Buffer } from "node:buffer";
import type { Readable, Writable } from "node:stream";
import {
  CALL_FD,
  callPayload,
  MAX_PAYLOAD_BYTES,
  STDIN_WAITER_SCRIPT,
  WAITER_SCRIPT,
  waiterShell,
} from "../../lib/process/warm_script.ts";
import { hostBaseEnv } from "../../lib/sandbox/warm_host.ts";

const TRICKY = [
  `it's "quoted" 'twice' '\\''`,
  "line1\nline2\n\n",
  "$(touch /tmp/pwned) `id` ${HOME} $$ \\$x",
  "back\\slash\\\\ \\n \\' end\\",
  "é ā \u0080\u009f\u00ff 漢字 😀 \ud800 lone \udfff",
  "\t\r\u0001\u001b[0m ; & | < > * ? [ ] { } ~ # ! %s %%",
  "",
  "-n",
];

/** Run the waiter with `line` on its call fd; resolves to its stdout and exit status. */
function waiter(line: Uint8Array): Promise<{ out: Buffer; code: number | null }> {
  return run(waiterShell()!, ["-c", WAITER_SCRIPT], line);
}

/** Run `command` (fd 3 as a sandbox's would be; with `line`, fd 4 the waiter's call fd). */
function run(
  command: string,
  args: string[],
  line?: Uint8Array,
): Promise<{ out: Buffer; code: number | null }> {
  const c = spawn(command, args, {
    cwd: "/",
    env: {},
    stdio: ["pipe", "pipe", "ignore", "pipe", ...(line ? ["pipe" as const] : [])],
  });
  c.stdin!.end();
  (c.stdio[3] as Readable).resume();
  if (line) (c.stdio[CALL_FD] as Writable).end(line);
  const chunks: Buffer[] = [];
  (c.stdout as Readable).on("data", (b: Buffer) => chunks.push(b));
  return new Promise((resolve) => {
    c.once("close", (code) => resolve({ out: Buffer.concat(chunks), code }));
  });
}

function payload(command: string, args: string[], env: Record<string, string> = {}) {
  const p = callPayload({ command, args, env });
  if (!p.ok) throw new Error(p.reason);
  return p.line;
}

const skip = waiterShell() === null ? "no trusted dash installed" : undefined;

Deno.test("waiter: arguments and environment values arrive byte for byte", async () => {
  if (skip) return console.log(`SKIP waiter bytes: ${skip}`);
  const args = await waiter(payload("/usr/bin/printf", ["%s\\0", ...TRICKY]));
  assert.equal(args.code, 0);
  assert.deepEqual(args.out, Buffer.from(TRICKY.map((t) => `${t}\0`).join(""), "utf8"));
  const env: Record<string, string> = { PWD: "/" }; // bwrap sets it in a sandbox
  TRICKY.forEach((v, i) => (env[`V${i}`] = v));
  for (const n of ["PPID", "LINENO", "IFS", "PS1", "ENV", "_", "PATH"]) env[n] = TRICKY[0];
  const got = await waiter(payload("/usr/bin/env", ["-0"], env));
  assert.equal(got.code, 0);
  const vars = got.out.toString("utf8").split("\0").filter((v) => v !== "").sort();
  const want = Object.entries(env).map(([k, v]) => Buffer.from(`${k}=${v}`).toString()).sort();
  assert.deepEqual(vars, want);
});

Deno.test("waiter: a value exported twice is the same bytes the second time", async () => {
  if (skip) return console.log(`SKIP waiter repeated values: ${skip}`);
  const env: Record<string, string> = { PWD: "/" };
  // The call's TMPDIR, TMP and TEMP; a value a name dash sets itself holds first; tricky bytes.
  for (const [i, v] of ["/state/calls/0123456789abcdef01234567/tmp", ...TRICKY].entries()) {
    Object.assign(env, { [`PPID`]: v, [`A${i}`]: v, [`B${i}`]: v, [`C${i}`]: v });
  }
  const line = payload("/usr/bin/env", ["-0"], env);
  assert.match(Buffer.from(line).toString(), /export B0="\$A0"; export C0="\$A0"/);
  assert.doesNotMatch(Buffer.from(line).toString(), /"\$PPID"/);
  const got = await waiter(line);
  assert.equal(got.code, 0);
  const vars = got.out.toString("utf8").split("\0").filter((v) => v !== "").sort();
  const want = Object.entries(env).map(([k, v]) => Buffer.from(`${k}=${v}`).toString()).sort();
  assert.deepEqual(vars, want);
});

Deno.test("waiter: the call fd is closed before the exec; a cut line runs nothing", async () => {
  if (skip) return console.log(`SKIP waiter fds: ${skip}`);
  // ls lists its own descriptors (no shell pipeline's fds come and go meanwhile): a
  // descriptor the waiter left open would show, and move ls's own directory fd.
  const fdList = (out: Buffer) =>
    out.toString().split("\n").filter((l) => l.includes(" -> ")).map((l) =>
      l.replace(/.*[0-9] ([0-9]+ ->)/, "$1").replace(/:\[.*/, "").replace(/\/[0-9]+\//, "/N/")
    ).join("\n");
  const fds = fdList((await waiter(payload("/bin/ls", ["-l", "/proc/self/fd"]))).out);
  const direct = fdList((await run("/bin/ls", ["-l", "/proc/self/fd"])).out);
  assert.match(fds, /^3 -> /m);
  assert.equal(fds, direct);
  const line = payload("/usr/bin/printf", ["ran"]);
  const cut = await waiter(line.subarray(0, line.length - 1)); // no newline: cut
  assert.equal(cut.code, 1);
  assert.equal(cut.out.length, 0);
  const missing = await waiter(payload("/nonexistent/program", []));
  assert.equal(missing.code, 1, "exit 1, as bwrap when it cannot execvp");
});

Deno.test("waiter: what dash cannot export unchanged is refused", () => {
  const refused = (env: Record<string, string>, args: string[] = [], command = "/bin/true") =>
    callPayload({ command, args, env }).ok === false;
  assert.ok(refused({ OPTIND: "x" }));
  assert.ok(refused({ "A-B": "x" }));
  assert.ok(refused({ _th_p: "x" }));
  assert.ok(refused({}, ["a\0b"]));
  assert.ok(refused({ A: "a\0b" }));
  assert.ok(refused({}, ["x".repeat(MAX_PAYLOAD_BYTES)]));
  assert.ok(refused({}, [], "true"));
  assert.ok(!refused({ A: "x" }, ["y"]));
});

/** Run the stdin waiter with environment `env` and `line` first on its stdin. */
function stdinWaiter(env: Record<string, string>, line: Uint8Array) {
  return spawnOut(waiterShell()!, ["-c", STDIN_WAITER_SCRIPT], env, line);
}

function spawnOut(
  command: string,
  args: string[],
  env: Record<string, string>,
  stdin: Uint8Array = new Uint8Array(),
  cwd = "/",
): Promise<{ out: Buffer; code: number | null }> {
  const c = spawn(command, args, { cwd, env, stdio: ["pipe", "pipe", "ignore"] });
  c.stdin!.end(stdin);
  const chunks: Buffer[] = [];
  c.stdout!.on("data", (b: Buffer) => chunks.push(b));
  return new Promise((resolve) => {
    c.once("close", (code) => resolve({ out: Buffer.concat(chunks), code }));
  });
}

function sortedVars(out: Buffer): string[] {
  return out.toString("utf8").split("\0").filter((v) => v !== "").sort();
}

Deno.test("waiter: with a base environment the line carries only the difference, exactly", async () => {
  if (skip) return console.log(`SKIP waiter base env: ${skip}`);
  const a: Record<string, string> = { PATH: "/usr/bin:/bin", KEEP: TRICKY[0], SAME: TRICKY[1] };
  TRICKY.forEach((v, i) => (a[`OLD${i}`] = v));
  const special = ["IFS", "PWD", "OLDPWD", "ENV", "OPTIND", "PS1", "LINENO", "_th_nl", "CDPATH"];
  for (const n of [...special, "TMPDIR", "TMP", "TEMP"]) a[n] = "a";
  const base = hostBaseEnv(a);
  for (const n of [...special, "TMPDIR", "TMP", "TEMP"]) {
    assert.ok(!(n in base), `${n} is never inherited`);
  }
  const b: Record<string, string> = { PATH: "/usr/bin:/bin", KEEP: TRICKY[0], SAME: TRICKY[1] };
  TRICKY.forEach((v, i) => (b[`NEW${i}`] = v));
  b.OLD2 = TRICKY[3]; // changed
  b.OLD3 = TRICKY[3]; // unchanged
  for (const n of ["IFS", "PWD", "ENV", "PS1", "LINENO", "_"]) b[n] = TRICKY[2];
  const p = callPayload({ command: "/usr/bin/env", args: ["-0"], env: b, cwd: "/tmp", base });
  assert.ok(p.ok);
  const text = Buffer.from(p.line).toString("utf8");
  assert.ok(!text.includes("KEEP") && !text.includes("OLD3"), "what did not change is not on it");
  assert.match(text, /unset [^;]* OLD0 /);
  const warm = await stdinWaiter(base, p.line);
  const cold = await spawnOut("/usr/bin/env", ["-0"], b, undefined, "/tmp");
  assert.equal(warm.code, 0);
  assert.deepEqual(sortedVars(warm.out), sortedVars(cold.out));
  const want = Object.entries(b).map(([k, v]) => Buffer.from(`${k}=${v}`).toString()).sort();
  assert.deepEqual(sortedVars(cold.out), want);
  // Every refusal holds with a base, and a base with a name dash cannot export is refused.
  const refused = (env: Record<string, string>, bs: Record<string, string> = base) =>
    callPayload({ command: "/bin/true", args: [], env, base: bs }).ok === false;
  assert.ok(refused({ ...b, OPTIND: "1" }));
  assert.ok(refused({ ...b, _th_p: "x" }));
  assert.ok(refused({ ...b, KEEP: "a\0b" }));
  assert.ok(refused(b, { ...base, "A-B": "x" }));
  assert.ok(refused(b, { ...base, OPTIND: "1" }));
  assert.ok(!refused(b));
});
