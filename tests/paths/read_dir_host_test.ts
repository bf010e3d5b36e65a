/**
 * Folder listings of the path sandbox with the host's own listing (`useHostReadDir`, which
 * the CLI sets to `Deno.readDirSync`): the same entries, kinds, order and entry bound as
 * `node:fs`, and a grep over a tree finds the same matches either way.
 */

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { useHostReadDir } from "../../lib/pins/host_fs.ts";
import { withDenoHost, withDenoHostSync } from "../helpers/deno_host.ts";
import { readDirEntries, TooManyEntriesError } from "../../lib/paths/read_dir.ts";
import type { DirEntry } from "../../lib/paths/sandbox_types.ts";
import { runBuiltin } from "../../lib/builtins/run.ts";
import type { BuiltinEnv } from "../../lib/builtins/context.ts";
import type { BuiltinToolDecl } from "../../lib/workspace/types.ts";

function list(dir: string, max: number, sortKey?: (n: string) => string): DirEntry[] {
  const fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  try {
    return readDirEntries({ fd, base: `/proc/self/fd/${fd}` }, "logical/dir", max, sortKey);
  } finally {
    fs.closeSync(fd);
  }
}

function fixture(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "read-dir-host-"));
  fs.writeFileSync(path.join(dir, "b.txt"), "needle\n");
  fs.mkdirSync(path.join(dir, "a-dir"));
  fs.writeFileSync(path.join(dir, "a-dir", "c.txt"), "x needle y\n");
  fs.symlinkSync("/etc/passwd", path.join(dir, "link"));
  execFileSync("mkfifo", [path.join(dir, "pipe")]);
  fs.writeFileSync(path.join(dir, "Z.txt"), "no\n");
  return dir;
}

Deno.test("readDirEntries: the host's listing gives node:fs's entries, kinds and order", () => {
  const dir = fixture();
  try {
    const plain = list(dir, 100);
    assert.deepEqual(plain.map((e) => [e.name, e.kind]), [
      ["Z.txt", "file"],
      ["a-dir", "directory"],
      ["b.txt", "file"],
      ["link", "symlink"],
      ["pipe", "other"],
    ]);
    assert.deepEqual(withDenoHostSync(() => list(dir, 100)), plain);
    let listed = 0; // the host's listing is the one used when set
    useHostReadDir((p) => (listed++, Deno.readDirSync(p)));
    try {
      assert.deepEqual(list(dir, 100), plain);
    } finally {
      useHostReadDir(undefined);
    }
    assert.equal(listed, 1);
    const lower = (n: string) => n.toLowerCase();
    assert.deepEqual(withDenoHostSync(() => list(dir, 100, lower)), list(dir, 100, lower));
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
});

Deno.test("readDirEntries: the host's listing keeps the entry bound (an error, not a cut)", () => {
  const dir = fixture();
  try {
    assert.equal(withDenoHostSync(() => list(dir, 5)).length, 5);
    for (const run of [() => list(dir, 4), () => withDenoHostSync(() => list(dir, 4))]) {
      assert.throws(run, (e: unknown) => {
        assert.ok(e instanceof TooManyEntriesError);
        assert.match((e as Error).message, /`logical\/dir` has more than 4 entries/);
        return true;
      });
    }
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
});

Deno.test("grep: the same matches with the host's listing as with node:fs", async () => {
  const root = fixture();
  try {
    const decl: BuiltinToolDecl = {
      type: "builtin",
      name: "grep",
      builtin: "grep",
      description: "t",
      keyPath: "t",
    };
    const env: BuiltinEnv = {
      declaring: { id: "t", kind: "folder", physicalPath: root, cwd: root },
      descendants: new Map(),
      workspace: { root, manifestPath: "", artifacts: new Map(), evals: new Map(), extra: {} },
    };
    const plain = await runBuiltin(decl, { pattern: "needle" }, env);
    const hosted = await withDenoHost(() => runBuiltin(decl, { pattern: "needle" }, env));
    assert.equal(plain.isError, false);
    assert.deepEqual(hosted, plain);
    const data = (plain.content[0] as { data: { matches: { path: string }[] } }).data;
    assert.deepEqual(data.matches.map((m) => m.path).sort(), ["a-dir/c.txt", "b.txt"]);
  } finally {
    fs.rmSync(root, { recursive: true });
  }
});
