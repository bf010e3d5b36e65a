import assert from "node:assert/strict";
import path from "node:path";
import { PathError } from "../../lib/errors/errors.ts";
import { findDescendant, resolveLogicalPath } from "../../lib/paths/resolve.ts";
import { env, fileView, folderView } from "../builtins/helpers.ts";

const WS = "/ws";
const app = folderView("app", `${WS}/app`);
const spec = folderView("spec", `${WS}/app/rules`);
const secret = folderView("secret", `${WS}/app/rules/private`);
const notes = fileView("notes", `${WS}/app/docs/notes.md`);
const e = env(app, {
  rules: { view: spec, admitted: true },
  "rules/private": { view: secret, admitted: false },
  "docs/notes.md": { view: notes, admitted: true },
});

Deno.test("seed example: rules/requirements.md reaches spec through app", () => {
  const r = resolveLogicalPath(e, "rules/requirements.md");
  assert.equal(r.artifactId, "app");
  assert.equal(r.resolvedArtifactId, "spec");
  assert.equal(r.path, "rules/requirements.md");
  assert.equal(r.rootDir, spec.physicalPath);
  assert.deepEqual(r.components, ["requirements.md"]);
});

Deno.test("paths outside descendants stay with the declaring Artifact", () => {
  const r = resolveLogicalPath(e, "src/main.ts");
  assert.equal(r.resolvedArtifactId, "app");
  assert.equal(r.rootDir, app.physicalPath);
  assert.deepEqual(r.components, ["src", "main.ts"]);
  const root = resolveLogicalPath(e, undefined);
  assert.equal(root.path, ".");
  assert.deepEqual(root.components, []);
  // A name that merely shares a prefix with a descendant is not inside it.
  assert.equal(resolveLogicalPath(e, "rules2/x").resolvedArtifactId, "app");
  assert.equal(resolveLogicalPath(e, "rulesx").resolvedArtifactId, "app");
});

Deno.test("longest prefix wins and non-admitted descendants are refused", () => {
  assert.throws(() => resolveLogicalPath(e, "rules/private/key.txt"), (x: unknown) => {
    assert.ok(x instanceof PathError);
    assert.match(x.message, /`rules\/private` belongs to Artifact `secret`.*does not admit/);
    return true;
  });
  assert.throws(() => resolveLogicalPath(e, "rules/private"), PathError);
  assert.equal(resolveLogicalPath(e, "rules").resolvedArtifactId, "spec");
  assert.deepEqual(resolveLogicalPath(e, "rules").components, []);
  assert.equal(findDescendant(e, ["rules", "private", "x"])?.view.id, "secret");
  assert.equal(findDescendant(e, ["rules", "x"])?.view.id, "spec");
  assert.equal(findDescendant(e, ["x"]), undefined);
});

Deno.test("a descendant file Artifact exposes only its file", () => {
  const r = resolveLogicalPath(e, "docs/notes.md");
  assert.equal(r.resolvedArtifactId, "notes");
  assert.equal(r.fileOnly, "notes.md");
  assert.equal(r.rootDir, path.dirname(notes.physicalPath));
  assert.deepEqual(r.components, ["notes.md"]);
  assert.throws(() => resolveLogicalPath(e, "docs/notes.md/x"), /is a file/);
  // Siblings of the file belong to the declaring folder Artifact.
  assert.equal(resolveLogicalPath(e, "docs/other.md").resolvedArtifactId, "app");
});

Deno.test("a declaring file Artifact: virtual root and its filename only", () => {
  const fe = env(notes);
  const root = resolveLogicalPath(fe, ".", { allowDotRoot: true });
  assert.equal(root.fileOnly, "notes.md");
  assert.deepEqual(root.components, []);
  assert.equal(root.rootDir, path.dirname(notes.physicalPath));
  assert.deepEqual(resolveLogicalPath(fe, undefined).components, []);
  const f = resolveLogicalPath(fe, "notes.md");
  assert.deepEqual(f.components, ["notes.md"]);
  assert.equal(f.resolvedArtifactId, "notes");
  for (const p of ["other.md", "docs/notes.md", "notes.md/x", "x/notes.md"]) {
    assert.throws(() => resolveLogicalPath(fe, p), /exposes only its file `notes.md`/);
  }
  assert.throws(() => resolveLogicalPath(fe, "."), /not allowed/);
});

Deno.test("validation runs before resolution", () => {
  for (const p of ["../app", "rules/../x", "/ws/app", "a\\b", "a:b", "", "a//b"]) {
    assert.throws(() => resolveLogicalPath(e, p), PathError);
  }
});
