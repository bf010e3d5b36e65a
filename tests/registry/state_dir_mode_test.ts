/**
 * Everything private toolhost keeps — call and session directories, their owner records
 * and journals (the group tags), spilled artifacts, audit lines — lies below the state
 * directory. A state directory that already exists open to other users (a checkout or an
 * archive made it 0755 or 0777) is made private (0700) when a registry opens, so other
 * local users can neither read what is below it nor rename its folders. One owned by
 * another user is refused: that user could rename or replace anything below it.
 */
import assert from "node:assert/strict";
import { chmodSync, chownSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { BASE_FILES, BASE_TOML, tempWorkspace } from "../helpers/workspace.ts";

const mode = (p: string) => statSync(p).mode & 0o777;

Deno.test("an existing state directory open to others is made 0700 at open", async () => {
  await using tmp = await tempWorkspace(BASE_TOML, BASE_FILES);
  await using outside = await tempWorkspace("", {});
  const ws = await loadWorkspace(tmp.root);
  for (const stateDir of [join(tmp.root, ".toolhost/state"), join(outside.root, "st")]) {
    mkdirSync(stateDir, { recursive: true });
    chmodSync(stateDir, 0o777);
    await (await Registry.open(ws, "app/review", { stateDir })).close();
    assert.equal(mode(stateDir), 0o700, stateDir);
  }
});

Deno.test({
  name: "a state directory owned by another user is refused",
  ignore: process.getuid?.() !== 0, // only root can give a folder to another user
  fn: async () => {
    await using tmp = await tempWorkspace(BASE_TOML, BASE_FILES);
    const ws = await loadWorkspace(tmp.root);
    const stateDir = join(tmp.root, ".toolhost/state");
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    chownSync(stateDir, 65534, 65534);
    await assert.rejects(
      Registry.open(ws, "app/review", { stateDir }),
      (e: Error & { code?: string }) =>
        e.code === "PREPARATION_FAILED" && /another user/.test(e.message) &&
        !e.message.includes(tmp.root),
    );
  },
});

Deno.test("a shared (sticky) folder as the state directory is refused, its mode kept", async () => {
  await using outside = await tempWorkspace("", {});
  await using tmp = await tempWorkspace(BASE_TOML, BASE_FILES);
  const stateDir = join(outside.root, "shared");
  mkdirSync(stateDir);
  chmodSync(stateDir, 0o1777);
  await assert.rejects(
    Registry.open(await loadWorkspace(tmp.root), "app/review", { stateDir }),
    (e: Error & { code?: string }) => e.code === "PREPARATION_FAILED" && /shared/.test(e.message),
  );
  assert.equal(statSync(stateDir).mode & 0o7777, 0o1777);
});

Deno.test("a folder that is not toolhost's keeps its mode: the workspace, what holds it, a full folder", async () => {
  await using outside = await tempWorkspace("", { "notes/a.txt": "mine\n" });
  await using tmp = await tempWorkspace(BASE_TOML, BASE_FILES);
  const ws = await loadWorkspace(tmp.root);
  const full = join(outside.root, "notes"); // someone's folder, open to others
  chmodSync(full, 0o755);
  const parent = join(tmp.root, ".."); // holds the workspace
  const before = [tmp.root, parent, full].map(mode);
  for (
    const [stateDir, why] of [
      [tmp.root, /workspace root/],
      [parent, /holds it/],
      [full, /not toolhost's/],
    ] as const
  ) {
    await assert.rejects(
      Registry.open(ws, "app/review", { stateDir }),
      (e: Error & { code?: string }) => e.code === "PREPARATION_FAILED" && why.test(e.message),
      stateDir,
    );
  }
  assert.deepEqual([tmp.root, parent, full].map(mode), before, "no mode was changed");
  // An empty folder, or one toolhost used before, is still made private.
  const used = join(outside.root, "used");
  mkdirSync(join(used, "calls"), { recursive: true });
  chmodSync(used, 0o755);
  await (await Registry.open(ws, "app/review", { stateDir: used })).close();
  assert.equal(mode(used), 0o700);
});
