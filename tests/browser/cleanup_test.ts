/**
 * Cleanup of the browser tree, for examples/browser and the `init --template browser`
 * scaffold alike (both confined, as declared), and for the example unconfined (where
 * toolhost's own group kill and sweep, not bubblewrap, end the tree): a one-shot
 * `tools call`, a session stop, a crash of Chromium and a `kill -9` of toolhost mid-session
 * each leave no process whose command line or environment names the state directory
 * (a `/proc` scan; confined, even before any sweep after the kill -9), and the next
 * start works. SKIPs with the reason when Chromium (or
 * bubblewrap, for the confined rows) is missing.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sandboxSupport } from "../../lib/sandbox/detect.ts";
import { sweepSessions } from "../../lib/sessions/sweep.ts";
import { runProcess } from "../helpers/cli.ts";
import {
  chromiumMain,
  chromiumMissing,
  exampleCopy,
  markedProcesses,
  toolEnv,
  waitFor,
} from "./_helpers.ts";
import { makeSubject, openSubject, type Subject } from "./_subjects.ts";

const missing = chromiumMissing();
if (missing !== undefined) console.log(`SKIP tests/browser/cleanup_test.ts: ${missing}`);
const support = sandboxSupport();
const noSandbox = support.ok ? undefined : support.reason;
if (missing === undefined && noSandbox !== undefined) {
  console.log(`SKIP tests/browser/cleanup_test.ts (confined rows): ${noSandbox}`);
}

type Result = { content: { type: string; text?: string }[]; isError?: boolean };

function textOf(r: Result): string {
  return r.content.filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

async function gone(state: string, what: string): Promise<void> {
  assert.ok(
    await waitFor(() => markedProcesses(state).length === 0),
    `${what} left ${markedProcesses(state).length} process(es) of the browser tree`,
  );
}

/** Start the session in a separate toolhost process, SIGKILL it, and check what is left. */
async function killNine(s: Subject, state: string): Promise<void> {
  const owner = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("./fixtures/owner.ts", import.meta.url).pathname,
      s.root,
      s.evalId,
      s.tool("open_url"),
      state,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = owner.stdout.getReader();
  let out = "";
  while (!out.includes("ready\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the owner exited before it was ready");
    out += new TextDecoder().decode(value);
  }
  // Mid-session: the browser is up when toolhost dies.
  assert.ok(chromiumMain(state) !== undefined, `${s.label}: no browser before the kill`);
  owner.kill("SIGKILL");
  await owner.status;
  reader.releaseLock();
  await owner.stdout.cancel();
  // Confined, the dead man's switch ends every sandbox with toolhost: nothing is left
  // even before a sweep. Unconfined, the sweep (`toolhost sweep`) ends the group.
  if (s.confined) await gone(state, `${s.label}: kill -9 of toolhost (before any sweep)`);
  await sweepSessions(state, { graceMs: 500 });
  await gone(state, `${s.label}: kill -9 of toolhost`);
}

async function cleanupTable(s: Subject, state: string): Promise<void> {
  // A one-shot call: the CLI stops and cleans its sessions before it exits.
  const r = await runProcess([
    "tools",
    "call",
    s.tool("open_url"),
    "--repo",
    s.root,
    "--eval",
    s.evalId,
    "--state-dir",
    state,
    "--args",
    '{"url":"/"}',
  ], { env: toolEnv() });
  assert.equal(r.code, 0, r.err);
  assert.equal(JSON.parse(r.out).isError, false, r.out);
  await gone(state, `${s.label}: tools call`);

  // A stop.
  let reg = await openSubject(s, state);
  try {
    assert.notEqual((await reg.call(s.tool("open_url"), { url: "/" })).isError, true);
    assert.ok(chromiumMain(state) !== undefined, `${s.label}: no browser`);
  } finally {
    await reg.close();
  }
  await gone(state, `${s.label}: a session stop`);

  // A crash of Chromium ends the session.
  reg = await openSubject(s, state);
  try {
    assert.notEqual((await reg.call(s.tool("open_url"), { url: "/" })).isError, true);
    const main = chromiumMain(state);
    assert.ok(main !== undefined, `${s.label}: no browser`);
    Deno.kill(main, "SIGKILL");
    await gone(state, `${s.label}: a Chromium crash`);
    const ended = await reg.call(s.tool("open_url"), { url: "/" }) as Result;
    assert.equal(ended.isError, true);
    assert.match(textOf(ended), new RegExp(`The tool session \`${s.session}\` ended\\.`));
  } finally {
    await reg.close();
  }

  await killNine(s, state);

  // The next start works.
  reg = await openSubject(s, state);
  try {
    const again = await reg.call(s.tool("open_url"), { url: "/" }) as Result;
    assert.notEqual(again.isError, true, textOf(again));
  } finally {
    await reg.close();
  }
  await gone(state, `${s.label}: the last stop`);
}

async function withTmp(body: (tmp: string) => Promise<void>): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), "toolhost-browser-cleanup-"));
  try {
    await body(tmp);
  } finally {
    for (const pid of markedProcesses(tmp)) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* gone */ }
    }
    rmSync(tmp, { recursive: true, force: true });
  }
}

for (const label of ["example", "scaffold"] as const) {
  Deno.test({
    name:
      `browser cleanup (${label}, confined): a call, a stop, a Chromium crash and kill -9 of toolhost leave nothing; the next start works`,
    ignore: missing !== undefined || noSandbox !== undefined,
  }, async () => {
    await withTmp(async (tmp) => {
      await cleanupTable(await makeSubject(label, join(tmp, label)), join(tmp, "state"));
    });
  });
}

Deno.test({
  name:
    "browser cleanup (example, unconfined): a call, a stop, a Chromium crash and kill -9 of toolhost leave nothing; the next start works",
  ignore: missing !== undefined,
}, async () => {
  await withTmp(async (tmp) => {
    const root = exampleCopy(join(tmp, "example"), { unconfined: true });
    const s: Subject = {
      label: "example, unconfined",
      root,
      evalId: "site/review",
      artifact: "site",
      session: "browser",
      tool: (a) => `${a}_site`,
      pages: join(root, "site/pages"),
      confined: false,
    };
    await cleanupTable(s, join(tmp, "state"));
  });
});
