import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  assertGroupsGone,
  assertStateClean,
  isRunning,
  journalEntries,
  openRegistry,
  readPids,
  sessionEntries,
  sessionWorkspace,
  textOf,
  waitFor,
} from "./_helpers.ts";

function startCount(root: string): number {
  const path = join(root, "app/starts.log");
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter((l) => l).length : 0;
}

const EXITED =
  "The tool session `app` could not start: its start command exited before it was ready (exit status 3).";

Deno.test("a start that exits before readiness is the call's error, the same later, without restart", async () => {
  await using ws = await sessionWorkspace({ start: ["exit_before_ready"] });
  const state = join(ws.root, ".state");
  const reg = await openRegistry(ws.root, state);
  try {
    const first = await reg.call("put_app", { value: "x" });
    assert.deepEqual(first, { content: [{ type: "text", text: EXITED }], isError: true });
    assert.deepEqual(sessionEntries(state), [], "a failed start is cleaned up at once");
    const second = await reg.call("get_app", {});
    assert.deepEqual(second, first);
    assert.equal(startCount(ws.root), 1, "the session was restarted");
    assert.equal(reg.sessions.sessions()[0].phase, "failed");
  } finally {
    await reg.close();
  }
  assert.equal(existsSync(join(ws.root, "app/stops.log")), false, "stop ran for a failed start");
  assertStateClean(state);
});

Deno.test("a start that never becomes ready waits until the call is cancelled", async () => {
  await using ws = await sessionWorkspace({ start: ["never_ready"] });
  const state = join(ws.root, ".state");
  const reg = await openRegistry(ws.root, state);
  reg.sessions.configure({ graceMs: 200 });
  const ctl = new AbortController();
  const call = reg.call("put_app", { value: "x" }, { signal: ctl.signal });
  await waitFor(() => startCount(ws.root) === 1, 120_000, "the start");
  ctl.abort();
  const r = await call;
  assert.deepEqual(r, {
    content: [{
      type: "text",
      text: "The call was cancelled while the tool session `app` was starting.",
    }],
    isError: true,
  });
  const groups = (await journalEntries(state)).map((e) => e.record);
  assert.equal(groups.length, 1);
  assert.ok(isRunning(groups[0].pid), "the start is still preparing");
  await reg.close();
  assertGroupsGone(groups);
  assertStateClean(state);
});

Deno.test("startup counts against the call's deadline", async () => {
  await using ws = await sessionWorkspace({ start: ["never_ready"], timeoutMs: 300 });
  const state = join(ws.root, ".state");
  const reg = await openRegistry(ws.root, state);
  reg.sessions.configure({ graceMs: 100 });
  const r = await reg.call("get_app", {});
  assert.equal(
    textOf(r),
    "The tool session `app` was not ready within the call's deadline of 300 ms (its start " +
      "command prints one line on stdout once ready; a slow start needs a larger timeout_ms " +
      "on the bound tool).",
  );
  assert.equal(r.isError, true);
  const groups = (await journalEntries(state)).map((e) => e.record);
  await reg.close();
  assertGroupsGone(groups);
  assertStateClean(state);
});

async function readinessCase(start: string[]): Promise<{ text: string; isError: boolean }> {
  await using ws = await sessionWorkspace({ start });
  const state = join(ws.root, ".state");
  const reg = await openRegistry(ws.root, state);
  reg.sessions.configure({ graceMs: 100 });
  try {
    const r = await reg.call("get_app", {});
    return { text: textOf(r), isError: r.isError };
  } finally {
    await reg.close();
    assertStateClean(state);
  }
}

Deno.test("the readiness line may hold up to 64 KiB before its newline", async () => {
  const tooLong =
    "The tool session `app` could not start: its start command printed more than 65536 bytes without a newline before it was ready.";
  // get_app prints the stored value; none was stored, so `cat` fails: a non-startup error.
  const below = await readinessCase(["line", "65535"]);
  assert.notEqual(below.text, tooLong);
  assert.doesNotMatch(below.text, /could not start/);
  const at = await readinessCase(["line", "65536"]);
  assert.doesNotMatch(at.text, /could not start/);
  const above = await readinessCase(["line", "65537"]);
  assert.deepEqual(above, { text: tooLong, isError: true });
  const endless = await readinessCase(["no_newline", "200000"]);
  assert.deepEqual(endless, { text: tooLong, isError: true });
});

Deno.test("a start that closes stdout before readiness fails to start", async () => {
  const r = await readinessCase(["close_stdout"]);
  assert.deepEqual(r, {
    text:
      "The tool session `app` could not start: its start command closed its standard output before it was ready.",
    isError: true,
  });
});

Deno.test("a missing start command is a startup error naming no path", async () => {
  await using ws = await sessionWorkspace();
  // The tools' own program is fine (a bound call checks it before starting the session);
  // only the start command is not executable.
  const toml = join(ws.root, "toolhost.toml");
  Deno.writeTextFileSync(
    toml,
    Deno.readTextFileSync(toml).replace(
      'start = { command = "./harness.sh"',
      'start = { command = "./start.sh"',
    ),
  );
  Deno.writeTextFileSync(join(ws.root, "app/start.sh"), "not executable");
  const state = join(ws.root, ".state");
  const reg = await openRegistry(ws.root, state);
  const r = await reg.call("get_app", {});
  await reg.close();
  assert.equal(
    textOf(r),
    "The tool session `app` could not start: the command's file is not executable.",
  );
  assert.equal(textOf(r).includes(ws.root), false);
  assertStateClean(state);
});

Deno.test("start exiting mid-session cancels in-flight calls; later calls say the session ended", async () => {
  await using ws = await sessionWorkspace();
  const state = join(ws.root, ".state");
  const reg = await openRegistry(ws.root, state);
  try {
    await reg.call("put_app", { value: "x" });
    const dir = reg.sessions.sessions()[0].sessionDir!;
    const hanging = reg.call("hang_app", {});
    await waitFor(() => existsSync(join(dir, "hanging")), 120_000, "the hanging call");
    const callPids = readPids(join(dir, "call_pids"));
    const startGroup = (await journalEntries(state)).find((e) => e.role === "start")!.record;
    const quit = await reg.call("quit_app", {});
    const ended = {
      content: [{ type: "text", text: "The tool session `app` ended." }],
      isError: true,
    };
    assert.deepEqual(await hanging, ended);
    assert.equal(quit.isError === false || textOf(quit) === "The tool session `app` ended.", true);
    assert.deepEqual(await reg.call("get_app", {}), ended);
    assert.deepEqual(await reg.call("json_app", {}), ended);
    assert.equal(reg.sessions.sessions()[0].phase, "ended");
    for (const pid of callPids) assert.equal(isRunning(pid), false);
    await waitFor(() => !isRunning(startGroup.pid), 120_000, "the start group to be killed");
    assertGroupsGone([startGroup]);
    assert.equal(startCount(ws.root), 1, "the session restarted");
  } finally {
    await reg.close();
  }
  assert.ok(existsSync(join(ws.root, "app/stops.log")), "stop was not attempted");
  assertStateClean(state);
});
