/**
 * `toolhost init` refusals and rollback: existing files are never overwritten (exit 1),
 * NAME and kind are checked (exit 2, with boundary names), `--artifact` must name a
 * folder Artifact (exit 2), a manifest that would become invalid is rolled back (exit 1,
 * nothing changed), and `--help` shows an example.
 */

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { configureSandbox, sandboxSupport } from "../../lib/sandbox/detect.ts";
import { runCapture } from "../helpers/cli.ts";
import { EXISTING_TOML, tempDir, writeExisting } from "./_helpers.ts";

/** Every file below `root` (relative), sorted. */
function tree(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      out.push(e.isDirectory() ? `${p}/` : p);
      if (e.isDirectory()) walk(p);
    }
  };
  walk("");
  return out.sort();
}

Deno.test("init refuses to overwrite an existing file (exit 1) and writes nothing", async () => {
  await using tmp = tempDir();
  const first = await runCapture(["init", "json-tool", "greet", "--repo", tmp.path]);
  assert.equal(first.code, 0, first.err);
  const manifest = readFileSync(join(tmp.path, "toolhost.toml"), "utf8");
  const before = tree(tmp.path);
  for (const kind of ["json-tool", "harness"]) {
    const again = await runCapture(["init", kind, "greet", "--repo", tmp.path]);
    assert.equal(again.code, 1, kind);
    assert.match(again.err, /`tools\/greet\.mjs` already exists; toolhost init never overwrites/);
    assert.ok(!again.err.includes(tmp.path), "the message names a physical path");
  }
  // Only the test file is in the way: the program is not created either.
  writeFileSync(join(tmp.path, "tools/find.test.mjs"), "// mine\n");
  const plain = await runCapture(["init", "plain-tool", "find", "--repo", tmp.path]);
  assert.equal(plain.code, 1);
  assert.match(plain.err, /`tools\/find\.test\.mjs` already exists/);
  assert.equal(readFileSync(join(tmp.path, "tools/find.test.mjs"), "utf8"), "// mine\n");
  assert.ok(!existsSync(join(tmp.path, "tools/find.sh")));
  assert.equal(readFileSync(join(tmp.path, "toolhost.toml"), "utf8"), manifest);
  assert.deepEqual(tree(tmp.path), [...before, "tools/find.test.mjs"].sort());
});

Deno.test("init NAME: [a-z0-9][a-z0-9_-]*, 64 characters (60 for a harness); else exit 2", async () => {
  await using tmp = tempDir();
  const ws = join(tmp.path, "ws");
  const bad = ["Greet", "_greet", "gr eet", "gr.eet", "grüß", "a".repeat(65), ""];
  for (const name of bad) {
    const r = await runCapture(["init", "json-tool", name, "--repo", ws]);
    assert.equal(r.code, 2, JSON.stringify(name));
    assert.match(r.err, /NAME must match \[a-z0-9\]\[a-z0-9_-\]\* and be at most 64/);
  }
  // A leading "-" is an (unknown) option to the command line: also exit 2.
  assert.equal((await runCapture(["init", "json-tool", "-greet", "--repo", ws])).code, 2);
  assert.ok(!existsSync(ws), "a refused init created the workspace folder");
  for (const [kind, name] of [["json-tool", "a".repeat(64)], ["plain-tool", "b".repeat(63)]]) {
    const r = await runCapture(["init", kind, name, "--repo", ws]);
    assert.equal(r.code, 0, `${kind} ${name.length}: ${r.err}`);
  }
  const h61 = await runCapture(["init", "harness", "c".repeat(61), "--repo", ws]);
  assert.equal(h61.code, 2);
  assert.match(h61.err, /a harness NAME is at most 60 characters/);
  for (const name of ["c".repeat(60), "d".repeat(59)]) {
    const r = await runCapture(["init", "harness", name, "--repo", ws]);
    assert.equal(r.code, 0, `harness ${name.length}: ${r.err}`);
  }
  const check = await runCapture(["tools", "check", "--repo", ws]);
  assert.equal(check.code, 0, check.err);
});

Deno.test("init: unknown kind, missing NAME and bad --artifact exit 2", async () => {
  await using tmp = tempDir();
  const ws = join(tmp.path, "ws");
  const unknown = await runCapture(["init", "session", "x", "--repo", ws]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /the kind must be one of json-tool, plain-tool, harness/);
  // The likely kind is named: a tool session's scaffold is `harness`; `json` is a short form.
  assert.match(unknown.err, /\(did you mean `harness`\?\)/);
  const short = await runCapture(["init", "json", "x", "--repo", ws]);
  assert.equal(short.code, 2);
  assert.match(short.err, /\(did you mean `json-tool`\?\)/);
  assert.equal((await runCapture(["init", "json-tool", "--repo", ws])).code, 2);
  const badId = await runCapture(["init", "json-tool", "x", "--repo", ws, "--artifact", "My"]);
  assert.equal(badId.code, 2);
  assert.ok(!existsSync(ws));

  writeExisting(ws);
  const missing = await runCapture(["init", "json-tool", "x", "--repo", ws, "--artifact", "nope"]);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /declares no Artifact `nope`/);
  const file = await runCapture(["init", "json-tool", "x", "--repo", ws, "--artifact", "readme"]);
  assert.equal(file.code, 2);
  assert.match(file.err, /`readme` is a file Artifact/);
  assert.equal(readFileSync(join(ws, "toolhost.toml"), "utf8"), EXISTING_TOML);
});

Deno.test("init: an existing manifest that is already invalid → exit 1, nothing written", async () => {
  await using tmp = tempDir();
  writeExisting(tmp.path);
  const broken = `${EXISTING_TOML}\n[artifacts.code.views.agent_tools.bad]\nbuiltin = "nope"\n`;
  writeFileSync(join(tmp.path, "toolhost.toml"), broken);
  const before = tree(tmp.path);
  const r = await runCapture(["init", "json-tool", "x", "--repo", tmp.path]);
  assert.equal(r.code, 1);
  assert.match(r.err, /declaration error/);
  assert.deepEqual(tree(tmp.path), before);
  assert.equal(readFileSync(join(tmp.path, "toolhost.toml"), "utf8"), broken);
});

const COLLIDING = `# keep me
[artifacts.tools]
path = "tools"

[artifacts.tools.evals.agent]
audience = "agent"

[artifacts.x_tools]     # its tool "a" publishes a_x_tools
path = "other"

[artifacts.x_tools.views.agent_tools.a]
builtin = "read"`; // no final newline: init must add one before appending

Deno.test("init rolls back when the manifest would become invalid (name collision)", async () => {
  await using tmp = tempDir();
  mkdirSync(join(tmp.path, "tools"));
  mkdirSync(join(tmp.path, "other"));
  writeFileSync(join(tmp.path, "toolhost.toml"), COLLIDING);
  const before = tree(tmp.path);
  // Tool a_x of Artifact tools also publishes a_x_tools.
  const r = await runCapture([
    "init",
    "json-tool",
    "a_x",
    "--repo",
    tmp.path,
    "--artifact",
    "tools",
  ]);
  assert.equal(r.code, 1);
  assert.match(r.err, /would make toolhost\.toml invalid; nothing was changed/);
  assert.match(
    r.err,
    /publishes the name `a_x_tools`, which artifacts\.tools\.views\.agent_tools\.a_x/,
  );
  assert.ok(!r.err.includes(tmp.path), "the message names a physical path");
  assert.equal(readFileSync(join(tmp.path, "toolhost.toml"), "utf8"), COLLIDING);
  assert.deepEqual(tree(tmp.path), before);
  // Without the collision the same manifest takes the tool (after a newline).
  const ok = await runCapture([
    "init",
    "json-tool",
    "a_y",
    "--repo",
    tmp.path,
    "--artifact",
    "tools",
  ]);
  assert.equal(ok.code, 0, ok.err);
  const text = readFileSync(join(tmp.path, "toolhost.toml"), "utf8");
  assert.ok(text.startsWith(`${COLLIDING}\n\n# Added by`));
});

Deno.test("init rolls back a harness whose append breaks the TOML (inline table)", async () => {
  await using tmp = tempDir();
  mkdirSync(join(tmp.path, "tools"));
  const inline = `[artifacts.tools]\npath = "tools"\nevals = { agent = { audience = "agent" } }\n` +
    `views = { agent_tools = { read = { builtin = "read" } } }\n`;
  writeFileSync(join(tmp.path, "toolhost.toml"), inline);
  const r = await runCapture(["init", "harness", "notes", "--repo", tmp.path]);
  assert.equal(r.code, 1);
  assert.match(r.err, /nothing was changed/);
  assert.match(r.err, /invalid TOML/);
  assert.equal(readFileSync(join(tmp.path, "toolhost.toml"), "utf8"), inline);
  assert.deepEqual(tree(tmp.path), ["toolhost.toml", "tools/"]);
});

Deno.test("init whose new manifest fails to validate removes it and the new files", async () => {
  await using tmp = tempDir();
  // The Artifact folder `tools` exists as a symlink: Artifact paths may not be symlinks.
  Deno.symlinkSync(tmp.path, join(tmp.path, "tools"));
  const r = await runCapture(["init", "json-tool", "greet", "--repo", tmp.path]);
  assert.equal(r.code, 1);
  assert.match(r.err, /nothing was changed/);
  assert.deepEqual(tree(tmp.path), ["tools"]);
});

Deno.test("init adds an agent eval when none covers the Artifact", async () => {
  await using tmp = tempDir();
  mkdirSync(join(tmp.path, "app"));
  const human =
    `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.agent]\naudience = "human"\n`;
  writeFileSync(join(tmp.path, "toolhost.toml"), human);
  const r = await runCapture(["init", "json-tool", "greet", "--repo", tmp.path]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /appended: eval `app\/agent-2` and the declarations/);
  const check = await runCapture(["tools", "check", "--repo", tmp.path, "app/agent-2"]);
  assert.equal(check.code, 0, check.err);
});

Deno.test("init --help explains the kinds and shows an example", async () => {
  const r = await runCapture(["init", "--help"]);
  assert.equal(r.code, 0);
  assert.match(r.out, /Usage: toolhost init \[options\] <kind> <name>/);
  assert.match(r.out, /Examples?:\n {2}toolhost init json-tool greet/);
  for (const kind of ["json-tool", "plain-tool", "harness"]) assert.match(r.out, new RegExp(kind));
  const top = await runCapture(["--help"]);
  assert.match(top.out, /\n {2}init \[options\] <kind> <name> /);
});

Deno.test("init with a dangling-symlink toolhost.toml: a clear error, no path, rolled back", async () => {
  await using tmp = tempDir();
  Deno.symlinkSync(join(tmp.path, "missing.toml"), join(tmp.path, "toolhost.toml"));
  const r = await runCapture(["init", "json-tool", "greet", "--repo", tmp.path]);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /toolhost\.toml: is a symlink, and toolhost never follows one/);
  assert.doesNotMatch(r.err, /internal error|EEXIST/);
  assert.ok(!r.err.includes(tmp.path), "the message names a physical path");
  assert.deepEqual(tree(tmp.path), ["toolhost.toml"]);
  assert.ok(!existsSync(join(tmp.path, "missing.toml")), "the symlink was followed");
});

Deno.test("init on a host that cannot confine says so, with both ways forward", async () => {
  await using tmp = tempDir();
  configureSandbox({ bwrap: "/nonexistent/bwrap" });
  try {
    const r = await runCapture(["init", "plain-tool", "finder", "--repo", tmp.path]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Not runnable here yet: the declarations say `sandbox = "read"`/);
    assert.match(r.out, /bubblewrap could not create a sandbox here/);
    assert.match(r.out, /it never runs them unconfined/);
    assert.match(r.out, /delete\nthe `sandbox = "read"` lines from toolhost\.toml/);
    const json = await runCapture(["init", "json-tool", "greet", "--repo", tmp.path, "--json"]);
    assert.equal(json.code, 0, json.err);
    assert.match(JSON.parse(json.out).unconfinable, /bubblewrap could not create a sandbox/);
    configureSandbox({ platform: "darwin" });
    const mac = await runCapture(["init", "harness", "kv", "--repo", tmp.path]);
    assert.match(mac.out, /confinement needs Linux namespaces/);
  } finally {
    configureSandbox({});
  }
  // Where confinement works, no such note.
  if (sandboxSupport().ok) {
    await using other = tempDir();
    const ok = await runCapture(["init", "plain-tool", "finder", "--repo", other.path]);
    assert.doesNotMatch(ok.out, /Not runnable here/);
    const json = await runCapture(["init", "json-tool", "greet", "--repo", other.path, "--json"]);
    assert.equal(JSON.parse(json.out).unconfinable, undefined);
  }
});

Deno.test("init in a locked workspace puts `toolhost lock` first in the next steps", async () => {
  await using tmp = tempDir();
  const first = await runCapture(["init", "json-tool", "greet", "--repo", tmp.path]);
  assert.equal(first.code, 0, first.err);
  assert.doesNotMatch(first.out, /toolhost lock/);
  const lock = await runCapture(["lock", "--repo", tmp.path]);
  assert.equal(lock.code, 0, lock.err);
  const second = await runCapture(["init", "plain-tool", "find", "--repo", tmp.path]);
  assert.equal(second.code, 0, second.err);
  assert.match(
    second.out,
    /Next steps:\n(?: {2}cd .*\n)? {2}# toolhost\.lock refuses what it does not pin: review the change, then add it\n {2}toolhost lock --check\n {2}toolhost lock\n {2}# validate the declarations\n/,
  );
  // Without that step the new tool is refused: the lock no longer covers the workspace.
  const check = await runCapture(["lock", "--check", "--repo", tmp.path]);
  assert.equal(check.code, 1, check.out);
});
