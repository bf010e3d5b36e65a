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
