/**
 * A `toolhost.toml` or `toolhost.lock` that is a symlink is never followed: not when the
 * workspace loads (library, CLI), not when `tools check` locates lines, not when `toolhost
 * init` or `extensions import` append to the manifest, and a dangling one is refused, never
 * taken for "no manifest here" (the search going on to an ancestor) or "no lock".
 *
 * @module
 */

import assert from "node:assert/strict";
import { readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { DeclarationError } from "../../lib/errors/errors.ts";
import { appendToManifest } from "../../lib/init/manifest_edit.ts";
import { lockSectionFor } from "../../lib/lock_build/check_lock.ts";
import { buildSelectionReport } from "../../lib/check/check_report.ts";
import { renderCheckReport } from "../../lib/check/human_report.ts";
import { selectTools } from "../../lib/registry/selection.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { findWorkspaceRoot } from "../../lib/workspace/manifest_file.ts";
import { runCapture } from "../helpers/cli.ts";
import { BASE_FILES, BASE_TOML, withWorkspace } from "../helpers/workspace.ts";

/** A workspace whose toolhost.toml is a symlink to a valid manifest elsewhere in it. */
async function withLinkedManifest(fn: (root: string, target: string) => Promise<void>) {
  await withWorkspace(BASE_TOML, { ...BASE_FILES, "real.toml": BASE_TOML }, async (root) => {
    Deno.removeSync(join(root, "toolhost.toml"));
    symlinkSync("real.toml", join(root, "toolhost.toml"));
    await fn(root, join(root, "real.toml"));
  });
}

Deno.test("a symlinked toolhost.toml is a DeclarationError naming the file and the fix", async () => {
  await withLinkedManifest(async (root) => {
    const e = await loadWorkspace(root).then(() => undefined, (e) => e);
    assert.ok(e instanceof DeclarationError, String(e));
    assert.equal(e.code, "DECLARATION_ERROR");
    assert.match(e.message, /^toolhost\.toml: is a symlink, and toolhost never follows one/);
    assert.match(e.message, /replace the link with a regular file/);
    assert.ok(!e.message.includes(root), "no physical path");
  });
});

Deno.test("tools check and tools list refuse a symlinked toolhost.toml (exit 1)", async () => {
  await withLinkedManifest(async (root) => {
    for (const argv of [["tools", "check"], ["tools", "list", "--eval", "app/review"]]) {
      const r = await runCapture([...argv, "--repo", root]);
      assert.equal(r.code, 1, `${argv.join(" ")}: ${r.out}${r.err}`);
      assert.match(r.err, /toolhost\.toml: is a symlink/);
    }
  });
});

Deno.test("a dangling toolhost.toml symlink marks its folder: no search past it to an ancestor", async () => {
  await withWorkspace(BASE_TOML, BASE_FILES, async (root) => {
    Deno.mkdirSync(join(root, "sub"));
    symlinkSync("missing.toml", join(root, "sub", "toolhost.toml"));
    assert.equal(findWorkspaceRoot(undefined, join(root, "sub")), join(root, "sub"));
    await assert.rejects(
      loadWorkspace(undefined, { cwd: join(root, "sub") }),
      /toolhost\.toml: is a symlink/,
    );
    await assert.rejects(loadWorkspace(join(root, "sub")), /toolhost\.toml: is a symlink/);
  });
});

Deno.test("appending to a symlinked manifest is refused; the link's target is unchanged", async () => {
  await withLinkedManifest((root, target) => {
    assert.throws(
      () => appendToManifest(join(root, "toolhost.toml"), "\n# added\n"),
      (e: unknown) => e instanceof DeclarationError && /is a symlink/.test(e.message),
    );
    assert.equal(readFileSync(target, "utf8"), BASE_TOML);
    return Promise.resolve();
  });
});

Deno.test("toolhost init into a workspace with a symlinked manifest writes nothing through it", async () => {
  await withLinkedManifest(async (root, target) => {
    const r = await runCapture(["init", "json-tool", "greet", "--repo", root]);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.err, /toolhost\.toml: is a symlink/);
    assert.equal(readFileSync(target, "utf8"), BASE_TOML);
  });
});

Deno.test("tools check's lines are not read through a manifest swapped for a symlink", async () => {
  const toml = `${BASE_TOML}\n[artifacts.app.views.agent_tools.lookup]\ndescription = "L."\n` +
    `protocol = "plain"\ncommand = "no-such-program-q5"\nargs = []\n`;
  await withWorkspace(toml, BASE_FILES, async (root) => {
    const ws = await loadWorkspace(root);
    const report = buildSelectionReport(ws, selectTools(ws, { eval: "app/review" }), {});
    assert.match(renderCheckReport(ws, [report]), /\(toolhost\.toml:10\)/);
    // The same tables, three lines lower, behind a link: no line may come from it.
    Deno.writeTextFileSync(join(root, "other.toml"), `\n\n\n${toml}`);
    Deno.removeSync(join(root, "toolhost.toml"));
    symlinkSync("other.toml", join(root, "toolhost.toml"));
    const text = renderCheckReport(ws, [report]);
    assert.doesNotMatch(text, /toolhost\.toml:13/);
    assert.match(
      text,
      /at artifacts\.app\.views\.agent_tools\.lookup\.command \(toolhost\.toml\)\n/,
    );
  });
});

Deno.test("a dangling toolhost.lock symlink makes the lock unverifiable, not absent", async () => {
  await withWorkspace(BASE_TOML, BASE_FILES, async (root) => {
    const ws = await loadWorkspace(root);
    const stateDir = join(root, ".state");
    assert.equal(await lockSectionFor(ws, "app/review", stateDir), undefined);
    symlinkSync("missing.lock", join(root, "toolhost.lock"));
    const section = await lockSectionFor(ws, "app/review", stateDir);
    assert.equal(section?.status, "unverifiable");
    assert.match(section?.reason ?? "", /toolhost\.lock must be a regular file, not a symlink/);
    assert.match(section?.reason ?? "", /run `toolhost lock`/);
  });
});
