/**
 * A tree nested tens of thousands of folders deep — written by a tool in its TMPDIR, or
 * planted in a cloned repository's state directory — neither aborts toolhost nor is left
 * behind. `fs.rm`'s recursive removal under Deno (Rust's `remove_dir_all`) recursed once
 * per level on a runtime thread's stack and aborted the whole process ("thread
 * 'tokio-runtime-worker' has overflowed its stack") some 10,000 levels down: `tools call`
 * (and `serve`) when the call's directories were removed, `toolhost sweep` and every
 * `serve`'s start-up sweep when they met such a folder.
 *
 * Each case runs the real CLI in its own process, so such an abort fails the test rather
 * than the test runner.
 */

import assert from "node:assert/strict";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeTreeNoFollow } from "../../lib/paths/remove_tree.ts";
import { runProcess } from "../helpers/cli.ts";
import { BASE_TOML, tempWorkspace, toolTable } from "../helpers/workspace.ts";

/** Levels: past the ~10,000 that aborted `fs.rm`, with room to spare. */
const DEPTH = 15_000;
/** Levels made per `mkdir -p` (a path of 2 × this many bytes, under PATH_MAX). */
const STEP = 1_500;

/**
 * A shell snippet nesting `DEPTH` folders below `d` in the current directory, no path
 * longer than PATH_MAX: each round makes a new chain of `STEP` folders and moves the
 * tree so far to its bottom.
 */
const nestRounds = (rounds: number) =>
  `p=$(printf 'a/%.0s' $(seq ${STEP}))
mkdir d || exit 1
i=0
while [ $i -lt ${rounds} ]; do
  mkdir -p "n/$p" && mv d "n/$p" && mv n d || exit 1
  i=$((i+1))
done
`;

const NEST = nestRounds(DEPTH / STEP);

async function nest(dir: string, rounds: number): Promise<void> {
  const script = nestRounds(rounds);
  const out = await new Deno.Command("sh", { args: ["-c", script], cwd: dir }).output();
  assert.equal(out.code, 0, "nesting failed");
}

/** Remove what a failed case left, with the remover under test (never `fs.rm`). */
async function cleanup(root: string): Promise<void> {
  await removeTreeNoFollow(root).catch(() => {});
}

Deno.test({
  name:
    "a tool nesting 15,000 folders in its TMPDIR neither aborts `tools call` nor is left behind",
  async fn() {
    const toml = BASE_TOML + toolTable("app", "deep", {
      description: "Nest folders.",
      protocol: "plain",
      command: "./deep.sh",
      args: [],
      input_schema: { type: "object", additionalProperties: false },
    });
    const ws = await tempWorkspace(toml, {
      "app/README.md": "# app\n",
      "app/deep.sh": `#!/bin/sh\ncd "$TMPDIR" || exit 1\n${NEST}echo nested\n`,
    });
    try {
      Deno.chmodSync(join(ws.root, "app/deep.sh"), 0o755);
      const r = await runProcess([
        "tools",
        "call",
        "deep_app",
        "--eval",
        "app/review",
        "--repo",
        ws.root,
      ]);
      assert.ok(!r.err.includes("overflowed its stack"), "toolhost aborted");
      assert.equal(r.code, 0, `the call failed: ${r.out} ${r.err}`);
      assert.match(r.out, /nested/);
      const calls = join(ws.root, ".toolhost/state/calls");
      assert.deepEqual(readdirSync(calls), [], "the call's directory was left behind");
    } finally {
      await cleanup(ws.root);
    }
  },
});

Deno.test({
  name:
    "`toolhost sweep` removes a dead owner's call folder nested 15,000 deep, and deep session and artifact folders",
  async fn() {
    const ws = await tempWorkspace(BASE_TOML, { "app/README.md": "# app\n" });
    const state = join(ws.root, ".toolhost/state");
    const dead = `${JSON.stringify({ pid: 2 ** 22 + 7, startTime: 1, bootId: null })}\n`;
    const planted = [
      join(state, "calls", "ab".repeat(12)),
      join(state, "sessions", "cd".repeat(8)),
      join(state, "artifacts", "ef".repeat(12)),
    ];
    try {
      for (const dir of planted) {
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, "owner.json"), dead);
        // One past the depth that aborted; the others deep enough to be moved up.
        await nest(dir, dir === planted[0] ? DEPTH / STEP : 1);
      }
      const r = await runProcess(["sweep", "--json", "--repo", ws.root]);
      assert.ok(!r.err.includes("overflowed its stack"), "toolhost sweep aborted");
      assert.equal(r.code, 0, r.out);
      const report = JSON.parse(r.out);
      assert.deepEqual([report.calls, report.swept, report.artifacts], [1, 1, 1]);
      for (const kind of ["calls", "sessions", "artifacts"]) {
        assert.deepEqual(readdirSync(join(state, kind)), [], `${kind} left behind`);
      }
    } finally {
      await cleanup(ws.root);
    }
  },
});
