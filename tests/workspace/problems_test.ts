/**
 * Declaration problems: the report cap, linear line location, and escaping of key paths
 * and manifest-derived names.
 */

import assert from "node:assert/strict";
import { DeclarationError } from "../../lib/errors/errors.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { MAX_REPORTED_PROBLEMS, Problems } from "../../lib/workspace/problems.ts";
import { BASE_FILES, BASE_TOML, withWorkspace } from "../helpers/workspace.ts";

/** Does `s` hold an ESC, CR, LF or right-to-left override? */
const hasUnsafe = (s: string) => ["\u001b", "\r", "\n", "\u202e"].some((c) => s.includes(c));

/** BASE_TOML with `n` unknown keys under `[artifacts.app]`. */
function manifestWithUnknownKeys(n: number): string {
  const keys = Array.from({ length: n }, (_, i) => `k${i} = 1\n`).join("");
  return BASE_TOML.replace(`path = "app"\n`, `path = "app"\n${keys}`);
}

function declarationErrorOf(toml: string): Promise<DeclarationError> {
  return withWorkspace(toml, BASE_FILES, async (root) => {
    try {
      await loadWorkspace(root);
    } catch (e) {
      if (e instanceof DeclarationError) return e;
      throw e;
    }
    throw new Error("the manifest loaded");
  });
}

Deno.test("problems: below, at and above the cap", async () => {
  for (const n of [MAX_REPORTED_PROBLEMS - 1, MAX_REPORTED_PROBLEMS]) {
    const e = await declarationErrorOf(manifestWithUnknownKeys(n));
    assert.equal(e.problems.length, n);
    const lines = e.message.split("\n");
    assert.equal(lines.length, n);
    assert.doesNotMatch(e.message, /more problem/);
    assert.match(lines[0], /^toolhost\.toml:3: artifacts\.app\.k0: unknown key/);
    assert.match(
      lines[n - 1],
      new RegExp(`^toolhost\\.toml:${n + 2}: artifacts\\.app\\.k${n - 1}:`),
    );
  }
  for (const [extra, tail] of [[1, "and 1 more problem"], [2, "and 2 more problems"]] as const) {
    const e = await declarationErrorOf(manifestWithUnknownKeys(MAX_REPORTED_PROBLEMS + extra));
    assert.equal(e.problems.length, MAX_REPORTED_PROBLEMS);
    const lines = e.message.split("\n");
    assert.equal(lines.length, MAX_REPORTED_PROBLEMS + 1);
    assert.match(lines[MAX_REPORTED_PROBLEMS - 1], /artifacts\.app\.k99:/); // stable order
    assert.equal(lines[MAX_REPORTED_PROBLEMS], tail);
  }
});

Deno.test("problems: 20000 unknown keys: the first 100 reported, every key locatable", () => {
  // Timing is the bench's business; this checks the line index at scale.
  const keys = Array.from({ length: 20_000 }, (_, i) => `k${i} = 1`);
  const text = `[artifacts.app]\npath = "app"\n${keys.join("\n")}\n`;
  const p = new Problems("toolhost.toml", text);
  for (let i = 0; i < 20_000; i++) p.add(`artifacts.app.k${i}`, "unknown key");
  assert.throws(() => p.throwIfAny(), DeclarationError);
  assert.equal(p.list[0].line, 3);
  assert.equal(p.list[99].line, 102);
  assert.equal(p.list[100].line, undefined, "past the cap nothing is located");
  assert.equal(p.locate("artifacts.app.k19999"), 20_002);
  assert.equal(p.locate("artifacts.app.k10000"), 10_003);
});

Deno.test("problems: locating keeps its rules (headers, quoted keys, top level)", () => {
  const text = [
    "top = 1",
    "[artifacts.app]",
    'path = "app"',
    '"quoted" = 1',
    "[artifacts.app.views.agent_tools.read]",
    "builtin = 1",
  ].join("\n");
  const p = new Problems("t", text);
  assert.equal(p.locate("top"), 1);
  assert.equal(p.locate("artifacts"), 2);
  assert.equal(p.locate("artifacts.app.quoted"), 4);
  assert.equal(p.locate("artifacts.app.missing"), 2);
  assert.equal(p.locate("artifacts.app.views"), 5);
  assert.equal(p.locate("artifacts.app.views.agent_tools.read.builtin"), 6);
  assert.equal(p.locate("nowhere"), undefined);
});

Deno.test("problems: an ESC or newline in a quoted TOML key is escaped", async () => {
  for (
    const [raw, shown] of [["\\u001b[2J", "\\u{1b}[2J"], [
      "a\\nb\\rc\\u202e",
      "a\\u{a}b\\u{d}c\\u{202e}",
    ]]
  ) {
    const toml = BASE_TOML.replace(`path = "app"\n`, `path = "app"\n"${raw}" = 1\n`);
    const e = await declarationErrorOf(toml);
    assert.equal(e.problems.length, 1);
    assert.equal(e.problems[0].keyPath, `artifacts.app.${shown}`);
    assert.ok(!hasUnsafe(e.message));
    assert.ok(e.message.includes(`artifacts.app.${shown}: unknown key`), e.message);
  }
});

Deno.test("problems: a name inside a message is escaped too", () => {
  const p = new Problems("t", "");
  p.add("a", "names no Artifact `x\u001b]0;evil\u0007`");
  assert.equal(p.list[0].message, "names no Artifact `x\\u{1b}]0;evil\\u{7}`");
});

Deno.test("problems: a table header of 100000 dotted keys is indexed and located in linear work", async () => {
  // Each prefix of a header used to be joined and kept: 100,000 components made
  // 5·10^9 characters of map keys (a 200 KB manifest that never finished loading).
  const deep = Array(100_000).fill("a").join(".");
  const text = `top = 1\n[${deep}]\nk = 1\n`;
  const p = new Problems("toolhost.toml", text);
  assert.equal(p.locate("a"), 2);
  assert.equal(p.locate(deep), 2);
  assert.equal(p.locate(`${deep}.k`), 2);
  assert.equal(p.locate("top"), 1);
  await withWorkspace(`${BASE_TOML}[${deep}]\n`, BASE_FILES, async (root) => {
    const e = await loadWorkspace(root).then(() => undefined, (x) => x);
    assert.ok(e instanceof DeclarationError);
    assert.match(e.message, /unknown key/);
  });
});

Deno.test("problems: a header-like line of a million blanks is indexed in one pass", () => {
  // A lazy header regex backtracked over the blanks: quadratic, minutes for 1 MB.
  const text = `x = """\n[a${" ".repeat(1_000_000)}b\n"""\n[artifacts.app]\nk = 1\n`;
  const p = new Problems("toolhost.toml", text);
  assert.equal(p.locate("artifacts.app.k"), 5);
  assert.equal(p.locate("artifacts.app"), 4);
});

Deno.test("problems: header forms still located (arrays, comments, quoted keys, blanks)", () => {
  const text = [
    "[[ hooks.before_call ]] # first",
    "command = 1",
    '[ artifacts . "app" ]',
    "k = 1",
    "[artifacts.app.views] junk",
    "[]",
  ].join("\n");
  const p = new Problems("t", text);
  assert.equal(p.locate("hooks.before_call.command"), 2);
  assert.equal(p.locate("artifacts.app.k"), 4);
  assert.equal(p.locate("artifacts.app.views"), 3, "a header with trailing junk is not one");
});
