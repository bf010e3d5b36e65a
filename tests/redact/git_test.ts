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
  name: "git_diff: a hunk's context never shows the first or last lines of a multi-line value",
  ignore: !HAS_GIT,
  fn: async () => {
    // Longer than the context: each hunk shows only the value's first or last lines.
    const lines = KEY.split("\n");
    const value = [lines[0], ...Array(8).fill(lines[1]), lines[2], lines[3]].join("\n");
    const w = await open({ "v.txt": `old\n${value}\nend\n` }, value);
    try {
      commitAll(w.app);
      for (const body of [`new\n${value}\nend\n`, `old\n${value}\nchanged\n`]) {
        fs.writeFileSync(`${w.app}/data/v.txt`, body);
        for (const contextLines of [1, 3, 5]) {
          const r = await w.reg.call("diff_app", { contextLines });
          assert.equal(r.isError, false, JSON.stringify(r));
          for (const part of KEY_PARTS) assertNoPart(r, part, `git_diff -U${contextLines}`);
        }
      }
    } finally {
      await w.cleanup();
    }
  },
});

Deno.test({
  name: "git_diff: a hunk header's function context (a line cut at 80 bytes) shows no value",
  ignore: !HAS_GIT,
  fn: async () => {
    for (const shift of [50, 60, 70]) {
      // git shows the line before a hunk after its `@@` range, cut at 80 bytes: here the
      // cut goes through the value.
      const line = `key${"x".repeat(shift)}${VALUE}`;
      const w = await open({ "v.txt": `${line}\n${"1\n".repeat(10)}old\n` });
      try {
        commitAll(w.app);
        fs.writeFileSync(`${w.app}/data/v.txt`, `${line}\n${"1\n".repeat(10)}new\n`);
        const r = await w.reg.call("diff_app", {});
        assert.equal(r.isError, false, JSON.stringify(r));
        assertNoPart(r, VALUE, `git_diff function context ${shift}`);
      } finally {
        await w.cleanup();
      }
    }
  },
});
