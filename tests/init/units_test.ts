/**
 * Units of `toolhost init`: template filling, the embedded templates, manifest appends
 * (CRLF, missing final newline, exact undo) and the undo log.
 */

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fillTemplate } from "../../lib/init/fill.ts";
import { INIT_KINDS } from "../../lib/init/kinds.ts";
import { appendToManifest, createManifest } from "../../lib/init/manifest_edit.ts";
import { planScaffold } from "../../lib/init/plan.ts";
import { UndoLog } from "../../lib/init/undo_log.ts";
import { REPO, tempDir } from "./_helpers.ts";

Deno.test("fillTemplate replaces {{KEY}}, leaves {text} alone, refuses unknown keys and control characters", () => {
  assert.equal(
    fillTemplate('args = ["{text}"] # {{NAME}} of {artifactName} {{NAME}}', { NAME: "find" }),
    'args = ["{text}"] # find of {artifactName} find',
  );
  assert.throws(() => fillTemplate("{{NAME}} {{OTHER}}", { NAME: "x" }), /OTHER has no value/);
  assert.throws(() => fillTemplate("{{NAME}}", { NAME: "a\nb" }), /control character/);
});

Deno.test("the templates are embedded: lib/init holds only TypeScript, and every placeholder is filled", () => {
  const files = readdirSync(join(REPO, "lib/init"));
  assert.deepEqual(files.filter((f) => !f.endsWith(".ts")), []);
  const target = {
    root: "/ws",
    manifestExists: false,
    artifactId: "tools",
    artifactPath: "a/b/tools",
    evalName: "agent",
    evalId: "tools/agent",
    declareEval: true,
  };
  for (const kind of INIT_KINDS) {
    for (const exists of [false, true]) {
      const plan = planScaffold(kind, "x-1", { ...target, manifestExists: exists });
      const texts = [...plan.files.map((f) => f.text), plan.newManifest ?? plan.appended ?? ""];
      for (const t of texts) assert.doesNotMatch(t, /\{\{[A-Z_]+\}\}/, kind);
      assert.deepEqual(plan.files.map((f) => f.mode), [0o755, 0o644]);
      assert.match(plan.files[1].text, /new URL\("\.\.\/\.\.\/\.\.\/", import\.meta\.url\)/);
      assert.equal(
        plan.appended?.includes("[artifacts.tools.evals.agent]"),
        exists ? true : undefined,
      );
    }
  }
});

Deno.test("appendToManifest keeps the file byte for byte, adds a missing newline, follows CRLF; undo restores", async () => {
  await using tmp = tempDir();
  const path = join(tmp.path, "toolhost.toml");
  for (
    const [before, added, after] of [
      ["a = 1\n", "\nb = 2\n", "a = 1\n\nb = 2\n"],
      ["a = 1", "\nb = 2\n", "a = 1\n\nb = 2\n"],
      ["# c\r\na = 1\r\n", "\nb = 2\n", "# c\r\na = 1\r\n\r\nb = 2\r\n"],
      ["", "b = 2\n", "b = 2\n"],
    ]
  ) {
    writeFileSync(path, before);
    const edit = appendToManifest(path, added);
    assert.equal(readFileSync(path, "utf8"), after, JSON.stringify(before));
    edit.undo();
    assert.equal(readFileSync(path, "utf8"), before);
  }
  assert.throws(() => createManifest(path, "x = 1\n"), /`toolhost.toml` already exists/);
});

Deno.test("UndoLog: rollback removes what it created, keeps folders holding other files", async () => {
  await using tmp = tempDir();
  const log = new UndoLog(join(tmp.path, "ws/deep"));
  log.makeDirs(".");
  log.writeFile("a/b/x.mjs", "x", 0o755);
  log.writeFile("c/y.mjs", "y", 0o644);
  writeFileSync(join(tmp.path, "ws/deep/c/mine.txt"), "keep");
  assert.throws(() => log.writeFile("c/mine.txt", "z", 0o644), /`c\/mine\.txt` already exists/);
  log.rollback();
  assert.ok(!existsSync(join(tmp.path, "ws/deep/a")));
  assert.equal(readFileSync(join(tmp.path, "ws/deep/c/mine.txt"), "utf8"), "keep");
  assert.deepEqual(readdirSync(join(tmp.path, "ws/deep/c")), ["mine.txt"]);
  const empty = new UndoLog(join(tmp.path, "new/ws"));
  empty.writeFile("tools/x.sh", "x", 0o755);
  empty.rollback();
  assert.deepEqual(readdirSync(tmp.path), ["ws"], "the folders it made were not all removed");
});
