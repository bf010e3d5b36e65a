/**
 * `toolhost init harness`: the scaffold validates, passes `tools check`, its own
 * `node --test` file (with and without TOOLHOST_BIN), and runs as a real tool session
 * through the registry: two bound calls share state, and after close no process and no
 * session directory is left.
 */

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Registry } from "../../lib/registry/registry.ts";
import { sessionsRoot } from "../../lib/sessions/session_dir.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import type { Workspace } from "../../lib/workspace/types.ts";
import {
  assertGeneratedTestPasses,
  assertToolsCheck,
  EXISTING_TOML,
  init,
  processesMentioning,
  tempDir,
  toolhostWrapper,
  writeExisting,
} from "./_helpers.ts";

/** Two bound calls share the session; close leaves no process and no session directory. */
async function assertSessionWorks(
  w: Workspace,
  evalId: string,
  artifact: string,
  harness: string,
  stateDir: string,
): Promise<void> {
  const reg = await Registry.open(w, evalId, { stateDir });
  try {
    assert.deepEqual(processesMentioning(harness), [], "the session started before a call");
    const set = await reg.call(`notes_set_${artifact}`, { key: "greeting", value: "hello" });
    assert.deepEqual(set, {
      content: [{ type: "text", text: "Stored greeting." }, { type: "json", data: { size: 1 } }],
      isError: false,
    });
    assert.equal(processesMentioning(harness).length, 1, "one start process runs the session");
    assert.deepEqual(await reg.call(`notes_get_${artifact}`, { key: "greeting" }), {
      content: [
        { type: "text", text: "hello" },
        { type: "json", data: { key: "greeting", value: "hello" } },
      ],
      isError: false,
    });
    const missing = await reg.call(`notes_get_${artifact}`, { key: "other" });
    assert.deepEqual(missing, {
      content: [{ type: "text", text: "Nothing is stored under that key; set it first." }],
      isError: true,
    });
  } finally {
    await reg.close();
  }
  assert.deepEqual(processesMentioning(harness), [], "a harness process was left");
  const left = existsSync(sessionsRoot(stateDir)) ? readdirSync(sessionsRoot(stateDir)) : [];
  assert.deepEqual(left, [], "a session directory was left");
}

Deno.test("init harness into a new workspace: session, bound tools, passing test", async () => {
  await using tmp = tempDir();
  const ws = join(tmp.path, "ws");
  const out = await init(["harness", "notes", "--repo", ws]);
  assert.match(out, /^Created harness `notes` in Artifact `tools`:/);
  assert.match(out, /Agents see notes_set_tools, notes_get_tools in eval tools\/agent\./);
  assert.equal(statSync(join(ws, "tools/notes.mjs")).mode & 0o777, 0o755);

  const w = await loadWorkspace(ws);
  const art = w.artifacts.get("tools")!;
  assert.deepEqual(Object.keys(art.sessions), ["notes"]);
  assert.deepEqual(art.sessions.notes.start.executionPaths, ["tools/notes.mjs"]);
  for (const t of ["notes_set", "notes_get"]) {
    const decl = art.agentTools[t];
    assert.ok(decl.type === "command" && decl.session === "notes", t);
    assert.deepEqual(decl.executionPaths, ["tools/notes.mjs"]);
  }
  await assertToolsCheck(ws, "tools/agent");
  const file = join(ws, "tools/notes.test.mjs");
  await assertGeneratedTestPasses(file, ws, 2);
  await assertGeneratedTestPasses(file, ws, 2, toolhostWrapper(tmp.path));
  await assertSessionWorks(
    w,
    "tools/agent",
    "tools",
    join(ws, "tools/notes.mjs"),
    join(tmp.path, "s"),
  );
});

Deno.test("init harness appended to an existing manifest: nested Artifact, real session", async () => {
  await using tmp = tempDir();
  writeExisting(tmp.path);
  await init(["harness", "notes", "--repo", tmp.path]);
  assert.ok(readFileSync(join(tmp.path, "toolhost.toml"), "utf8").startsWith(EXISTING_TOML));
  const w = await loadWorkspace(tmp.path);
  await assertToolsCheck(tmp.path);
  const file = join(tmp.path, "src/code/notes.test.mjs");
  await assertGeneratedTestPasses(file, tmp.path, 2, toolhostWrapper(tmp.path));
  const harness = join(tmp.path, "src/code/notes.mjs");
  await assertSessionWorks(w, "code/review", "code", harness, join(tmp.path, "s"));
});
