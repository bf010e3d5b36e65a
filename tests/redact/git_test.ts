/**
 * The git tools with a protected value: git_diff's 256 KiB cut never ends in a part of
 * a value, and git_status orders a path holding a value as it is shown.
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { assertNoPart, open, VALUE } from "./_helpers.ts";

const HAS_GIT = (() => {
  try {
    execFileSync("git", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
if (!HAS_GIT) console.log("SKIP tests/redact/git_test.ts: git is not installed");

function commitAll(app: string): void {
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
      cwd: app,
      stdio: "pipe",
    });
  git("init", "-q", "-b", "main");
  git("add", ".");
  git("commit", "-qm", "init");
}

Deno.test({
  name: "git_diff: the 256 KiB output cut never ends in a value's first part",
  ignore: !HAS_GIT,
  fn: async () => {
    for (let shift = 0; shift < 6; shift++) {
      const w = await open({ "v.txt": "old\n" });
      try {
        commitAll(w.app);
        const body = "x".repeat(shift) + "\n" + `${VALUE}\n`.repeat(10_000);
        fs.writeFileSync(`${w.app}/data/v.txt`, body);
        const r = await w.reg.call("diff_app", {});
        assert.equal((r.content[0] as { data: { truncated: boolean } }).data.truncated, true);
        assertNoPart(r, VALUE, `git_diff shift ${shift}`);
      } finally {
        await w.cleanup();
      }
    }
  },
});

Deno.test({
  name: "git_status: a path holding a value sorts as it is shown",
  ignore: !HAS_GIT,
  fn: async () => {
    const shown = [];
    for (const value of ["BQZX-PWNBRTVY-HJMLDSGCF", "YQZX-PWNBRTVY-HJMLDSGCF"]) {
      const w = await open({ "a.txt": "a\n" }, value);
      try {
        commitAll(w.app);
        for (const n of ["key-M.txt", `key-${value}.txt`, "key-N.txt"]) {
          fs.writeFileSync(`${w.app}/data/${n}`, "x\n");
        }
        const r = await w.reg.call("status_app", {});
        assertNoPart(r, value, "git_status");
        shown.push(JSON.stringify(r).match(/key-[^"]*/g)?.join(" "));
      } finally {
        await w.cleanup();
      }
    }
    assert.equal(shown[0], shown[1]);
    assert.match(shown[0]!, /protected/);
  },
});

/** A multi-line value, as a private key is: git_diff shows each of its lines prefixed. */
const KEY = [
  "-----BEGIN QZXK KEY-----",
  "MIIEPWNBRTVYHJMLDSGCFXQWEAAAB",
  "ZZKWQRTPLMNBVCXJHGFDSAQWERTY",
  "-----END QZXK KEY-----",
].join("\n");
/** Its distinctive parts (diff headers hold `---` and line breaks too). */
const KEY_PARTS = ["BEGIN QZXK KEY", ...KEY.split("\n").slice(1, 3), "END QZXK KEY"];

Deno.test({
  name: "git_diff: a multi-line value whose lines the diff prefixes is redacted",
  ignore: !HAS_GIT,
  fn: async () => {
    const w = await open({ "v.txt": "old\n", "k.txt": "a\nb\n" }, KEY);
    try {
      commitAll(w.app);
      // A new file, a changed file (the value between changed lines: '+' lines only, then
      // mixed with context), staged and unstaged.
      fs.writeFileSync(`${w.app}/data/new.txt`, `${KEY}\n`);
      fs.writeFileSync(`${w.app}/data/v.txt`, `new\n${KEY}\nold\n`);
      fs.writeFileSync(`${w.app}/data/k.txt`, `a\n${KEY}\nb\n`);
      execFileSync("git", ["add", "-N", "data/new.txt"], { cwd: w.app });
      for (const args of [{}, { contextLines: 0 }, { contextLines: 10 }]) {
        const r = await w.reg.call("diff_app", args);
        assert.equal(r.isError, false, JSON.stringify(r));
        for (const part of KEY_PARTS) assertNoPart(r, part, `git_diff ${JSON.stringify(args)}`);
        assert.match(JSON.stringify(r), /\[protected\]/);
      }
      execFileSync("git", ["add", "."], { cwd: w.app });
      const staged = await w.reg.call("diff_app", { staged: true });
      for (const part of KEY_PARTS) assertNoPart(staged, part, "git_diff staged");
    } finally {
      await w.cleanup();
    }
  },
});

Deno.test({
  // Not fixed: a hunk's context is a window of the file, and git shows up to
  // `contextLines` lines of a multi-line value next to a change without the rest of the
  // value, so the diff alone cannot tell they are part of one. Redacting them needs the
  // file around each hunk (the working tree, the index or HEAD, by side).
  name: "git_diff: a hunk's context never shows the first lines of a multi-line value",
  ignore: true,
  fn: async () => {
    const long = [KEY.split("\n")[0], ...Array(8).fill(KEY.split("\n")[1]), "-----END-----"];
    const value = long.join("\n");
    const w = await open({ "v.txt": `old\n${value}\n` }, value);
    try {
      commitAll(w.app);
      fs.writeFileSync(`${w.app}/data/v.txt`, `new\n${value}\n`);
      const r = await w.reg.call("diff_app", {});
      for (const part of KEY_PARTS) assertNoPart(r, part, "git_diff context");
    } finally {
      await w.cleanup();
    }
  },
});
