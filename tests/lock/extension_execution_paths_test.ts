/**
 * An extension's `execution_paths`: the modules its server imports are pinned like a
 * command tool's. `toolhost lock` records them; `lock --check` and `tools check` show a
 * changed module without starting the server; the registry refuses to start (or restart)
 * a server whose module changed, with a lock and without one.
 */

import assert from "node:assert/strict";
import { startPinCheck } from "../../lib/extensions/start_pins.ts";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { readLockFile, writeLockFile } from "../../lib/lock/lock_file.ts";
import { evalToolSource } from "../../lib/mcp/tool_source.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { runCapture } from "../helpers/cli.ts";
import { expectProblem, tempWorkspace } from "../helpers/workspace.ts";
import { REPO } from "../mcp/_helpers.ts";

/** Marks the start, then runs `ext/server.ts` (which imports `ext/lib/impl.ts`). */
const LAUNCHER = `#!/bin/sh
touch "$MARK"
exec "${Deno.execPath()}" run -A --config "${REPO}/deno.json" "$EXT/server.ts"
`;
const SERVER = `import { IMPL } from "./lib/impl.ts";
if (IMPL !== "reviewed") throw new Error("unreviewed");
await import("${REPO}/tests/fixtures/mcp/heal_server.ts");
`;
const IMPL = `export const IMPL = "reviewed";\n`;
const CHANGED = `export const IMPL = "reviewed"; // and then some\n`;

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

function toml(root: string, extra = 'execution_paths = ["ext"]'): string {
  return `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"
extensions = ["hx"]

[artifacts.app.views.agent_tools.read]
builtin = "read"

[extensions.hx]
command = "tools/server.sh"
timeout_ms = 30000
env = { MARK = "${root}/started", EXT = "${root}/ext" }
${extra}
`;
}

const FILES = {
  "app/README.md": "# app\n",
  "tools/server.sh": { text: LAUNCHER, mode: 0o755 },
  "ext/server.ts": SERVER,
  "ext/lib/impl.ts": IMPL,
};

function gone(path: string): void {
  assert.throws(() => Deno.statSync(path), Deno.errors.NotFound, `${path} exists`);
}

/**
 * Call `pid_hx` until the server is refused a start (a call racing the kill may first hear
 * that it ended; a restart is tried after its backoff) or another server answers.
 */
async function callUntilRefused(
  call: () => Promise<{ content: unknown[] }>,
  killed: number,
): Promise<string> {
  const settled = (t: string) => /was not started/.test(t) || (/^\d+$/.test(t) && +t !== killed);
  let r = await call();
  for (let i = 0; i < 600 && !settled(text(r)); i++) {
    await new Promise((ok) => setTimeout(ok, 100)); // restart backoff, then the check
    r = await call();
  }
  return text(r);
}

function livePid(r: { content: unknown[] }): number {
  const pid = Number(text(r));
  assert.ok(Number.isInteger(pid) && pid > 0, `not a pid: ${text(r)}`);
  return pid;
}

/**
 * Start the server (a call), change the module it imports, kill it, and call until the
 * restart is refused: the refusal's text.
 */
async function changeAndRestart(
  root: string,
  source: { call(name: string, args: unknown): Promise<{ content: unknown[] }> },
): Promise<string> {
  const pid = livePid(await source.call("pid_hx", {}));
  await Deno.writeTextFile(`${root}/ext/lib/impl.ts`, CHANGED);
  Deno.removeSync(`${root}/started`);
  Deno.kill(pid, "SIGKILL");
  return await callUntilRefused(() => source.call("pid_hx", {}), pid);
}

Deno.test("a changed imported module: lock --check and tools check show it, nothing starts it", async () => {
  await using tmp = await tempWorkspace("", FILES);
  const repo = ["--repo", tmp.root];
  const mark = `${tmp.root}/started`;
  await Deno.writeTextFile(`${tmp.root}/toolhost.toml`, toml(tmp.root));
  const wrote = await runCapture(["lock", ...repo]);
  assert.equal(wrote.code, 0, wrote.err);
  const locked = await readLockFile({ root: tmp.root });
  const entry = locked!.evals["app/review"].extensions.hx;
  assert.match(entry.executionPaths?.ext ?? "", /^[0-9a-f]{64}$/);
  assert.deepEqual(entry.declaration.execution_paths, ["ext"]);
  Deno.removeSync(mark); // locking lists it once

  const clean = await runCapture(["lock", "--check", ...repo]);
  assert.equal(clean.code, 0, clean.out + clean.err);
  Deno.removeSync(mark); // a current extension is listed by the check

  await Deno.writeTextFile(`${tmp.root}/ext/lib/impl.ts`, CHANGED);
  const check = await runCapture(["lock", "--check", ...repo]);
  assert.equal(check.code, 1, check.out + check.err);
  assert.match(check.out, /extension `hx`: execution path `ext` changed/);
  assert.doesNotMatch(check.out + check.err, /and then some/);
  gone(mark);

  const report = await runCapture(["tools", "check", "--json", "app/review", ...repo]);
  assert.equal(report.code, 1, report.out + report.err);
  const body = JSON.parse(report.out);
  assert.equal(body.lock.status, "drift");
  assert.deepEqual(body.lock.drift, ["extension `hx`: execution path `ext` changed"]);
  assert.ok(body.lock.blocked.includes("echo_hx"), body.lock.blocked.join());
  gone(mark);

  const ws = await loadWorkspace(tmp.root);
  const source = evalToolSource(
    await Registry.open(ws, "app/review", { stateDir: `${tmp.root}/.s` }),
  );
  try {
    const names = (await source.list()).map((t) => t.name);
    assert.ok(names.includes("echo_hx"), names.join()); // listed neutrally
    const r = await source.call("echo_hx", { text: "hi" });
    assert.equal(r.isError, true);
    assert.match(text(r), /LOCK_MISMATCH/);
    assert.match(text(r), /execution path `ext` changed/);
  } finally {
    await source.close();
  }
  gone(mark);
});

Deno.test("a locked extension whose imported module changes while serving is not restarted", async () => {
  await using tmp = await tempWorkspace("", FILES);
  await Deno.writeTextFile(`${tmp.root}/toolhost.toml`, toml(tmp.root));
  const stateDir = `${tmp.root}/.state`;
  const ws = await loadWorkspace(tmp.root);
  await writeLockFile(ws, await buildLock(ws, { stateDir }));
  const source = evalToolSource(await Registry.open(ws, "app/review", { stateDir }));
  try {
    const refused = await changeAndRestart(tmp.root, source);
    assert.match(refused, /LOCK_MISMATCH: the extension `hx` was not started/);
    assert.match(refused, /execution path `ext` changed/);
    gone(`${tmp.root}/started`);
  } finally {
    await source.close();
  }
});

Deno.test("without a lock an extension whose imported module changed is not restarted", async () => {
  await using tmp = await tempWorkspace("", FILES);
  await Deno.writeTextFile(`${tmp.root}/toolhost.toml`, toml(tmp.root));
  const ws = await loadWorkspace(tmp.root);
  const source = evalToolSource(
    await Registry.open(ws, "app/review", { stateDir: `${tmp.root}/.state` }),
  );
  try {
    const refused = await changeAndRestart(tmp.root, source);
    assert.match(refused, /The extension `hx` was not started: its execution path `ext` changed/);
    gone(`${tmp.root}/started`);
  } finally {
    await source.close();
  }
});

Deno.test("lock refuses an extension folder holding a link that leads outside it", async () => {
  await using tmp = await tempWorkspace("", {
    ...FILES,
    "elsewhere/impl.ts": IMPL,
    "ext/lib/impl.ts": { symlink: "../../elsewhere/impl.ts" },
  });
  await Deno.writeTextFile(`${tmp.root}/toolhost.toml`, toml(tmp.root));
  const r = await runCapture(["lock", "--repo", tmp.root]);
  assert.notEqual(r.code, 0);
  assert.match(r.err, /extension `hx`: execution path `ext` holds a symlink `ext\/lib\/impl\.ts`/);
  gone(`${tmp.root}/toolhost.lock`);
  gone(`${tmp.root}/started`);
});

Deno.test("without a lock an extension folder holding a link that leads outside it is not started", async () => {
  await using tmp = await tempWorkspace("", {
    ...FILES,
    "elsewhere/impl.ts": IMPL,
    "ext/lib/impl.ts": { symlink: "../../elsewhere/impl.ts" },
  });
  await Deno.writeTextFile(`${tmp.root}/toolhost.toml`, toml(tmp.root));
  const ws = await loadWorkspace(tmp.root);
  const source = evalToolSource(
    await Registry.open(ws, "app/review", { stateDir: `${tmp.root}/.state` }),
  );
  try {
    // Its pin would hold while elsewhere/impl.ts changed: the server is never started.
    const r = await source.call("echo_hx", { text: "hi" });
    assert.equal(r.isError, true, JSON.stringify(r));
    gone(`${tmp.root}/started`);
    const check = startPinCheck(tmp.root, { name: "hx", executionPaths: ["ext"] });
    assert.match(
      (await check!()) ?? "",
      /The extension `hx` was not started: its execution path `ext` holds a symlink `ext\/lib\/impl\.ts`/,
    );
  } finally {
    await source.close();
  }
});

const REMOTE = (extra: string) =>
  `${
    toml("/r", "").replace(/command = .*\n/, 'url = "https://mcp.example.com/mcp"\n')
      .replace(/env = .*\n/, "")
  }${extra}\n`;

Deno.test("execution_paths of an extension: declaration errors with key path and line", async () => {
  const files = { "app/README.md": "# app\n", "ext/x.ts": "" };
  await expectProblem(REMOTE('execution_paths = ["ext"]'), files, {
    keyPath: "extensions.hx.execution_paths",
    message: /applies to an extension started with `command` only: a remote server's code/,
  });
  await expectProblem(toml("/r", 'execution_paths = ["../x"]'), files, {
    keyPath: "extensions.hx.execution_paths[0]",
    message: /must be a workspace-relative path/,
  });
  await expectProblem(toml("/r", 'execution_paths = ["ext", "ext"]'), files, {
    keyPath: "extensions.hx.execution_paths[1]",
    message: /duplicates an earlier entry/,
  });
  await expectProblem(toml("/r", 'execution_paths = "ext"'), files, {
    keyPath: "extensions.hx.execution_paths",
  });
  await expectProblem(toml("/r", 'execution_path = ["ext"]'), files, {
    keyPath: "extensions.hx.execution_path",
    message: /did you mean `execution_paths`/,
  });
});
