/**
 * files_list, files_find and git_status keep their json block within 512 KiB of compact
 * JSON: exactly at the cap nothing is cut, one byte above it the result stops early with
 * `truncated: true`.
 */

import assert from "node:assert/strict";
import fs from "node:fs";
import { Buffer } from "node:buffer";
import { execFileSync } from "node:child_process";
import { runFilesFind } from "../../lib/native/find.ts";
import { runGitStatus } from "../../lib/native/git.ts";
import { runFilesList } from "../../lib/native/list.ts";
import { fitJsonText, fitPrefix, ItemBytes } from "../../lib/native/json_budget.ts";
import { runShellExec } from "../../lib/native/shell.ts";
import { LIMITS } from "../../lib/results/types.ts";
import type { ToolResult } from "../../lib/results/types.ts";
import { appTree, call, type Json, ok } from "./_helpers.ts";

const CAP = LIMITS.maxJsonBytes;
const HUGE = Number.MAX_SAFE_INTEGER;

function blockBytes(r: ToolResult): number {
  return Buffer.byteLength(JSON.stringify((r.content[0] as { data: unknown }).data));
}

type Tool = "files_list" | "files_find";
const ARGS: Record<Tool, Record<string, unknown>> = {
  files_list: { maxEntries: 5000, depth: 1 },
  files_find: { pattern: "*", maxResults: 5000, depth: 1 },
};
const ITEMS: Record<Tool, string> = { files_list: "entries", files_find: "matches" };

/** The tool's result at a cap: the published tool at the default cap, else the runner. */
function run(
  tool: Tool,
  e: ReturnType<typeof appTree>["e"],
  cap: number,
  depth = 1,
): Promise<ToolResult> {
  if (cap === CAP && depth === 1) return call(tool, ARGS[tool], e);
  return tool === "files_list"
    ? runFilesList({ maxEntries: 5000, depth }, e, cap)
    : runFilesFind({ pattern: "*", maxResults: 5000, depth }, e, undefined, cap);
}

const long = (i: number) => `f${String(i).padStart(5, "0")}`.padEnd(250, "n");

for (const tool of ["files_list", "files_find"] as const) {
  Deno.test(`${tool}: the 512 KiB json cap — exactly at it, one byte below and above`, async () => {
    const t = appTree();
    try {
      let n = 0;
      const add = (count: number) => {
        for (let i = 0; i < count; i++) fs.writeFileSync(`${t.app}/${long(n++)}`, "");
      };
      add(1500);
      const size = async () => blockBytes(await run(tool, t.e, HUGE));
      let s = await size();
      add(1);
      const one = await size() - s; // the bytes of one more long entry
      s += one;
      add(Math.floor((CAP - s - 300) / one));
      s = await size();
      const overhead = one - 250; // an entry's bytes beyond its name
      for (let k = 0; CAP - s > 200; k++) {
        const len = Math.min(250, CAP - s - 150 - overhead);
        fs.writeFileSync(`${t.app}/${`g${k}`.padEnd(len, "g")}`, "");
        n++;
        s = await size();
      }
      // The last entry ("~" sorts after every "f…") sets the exact size.
      let tail = "~".padEnd(Math.max(1, CAP - s - 40), "t");
      fs.writeFileSync(`${t.app}/${tail}`, "");
      s = await size();
      const rename = (len: number) => {
        const next = "~".padEnd(len, "t");
        fs.renameSync(`${t.app}/${tail}`, `${t.app}/${next}`);
        tail = next;
      };
      rename(tail.length + (CAP - s));
      assert.ok(tail.length <= 255, "the fitting name is a valid file name");
      const total = n + 1;

      const at = await run(tool, t.e, CAP);
      const atData: Json = ok(at);
      assert.equal(blockBytes(at), CAP, "exactly at the cap");
      assert.equal(atData.truncated, false);
      assert.equal(atData[ITEMS[tool]].length, total);

      rename(tail.length - 1);
      const below: Json = ok(await run(tool, t.e, CAP));
      assert.equal(below.truncated, false);
      assert.equal(below[ITEMS[tool]].length, total);

      rename(tail.length + 2); // one byte above the cap
      assert.equal(await size(), CAP + 1);
      const above = await run(tool, t.e, CAP);
      const aboveData: Json = ok(above);
      assert.ok(blockBytes(above) <= CAP, `${blockBytes(above)} bytes`);
      assert.equal(aboveData.truncated, true);
      assert.equal(aboveData[ITEMS[tool]].length, total - 1, "only the last entry is dropped");
      assert.match(aboveData.warnings[0], /cut at 524288 bytes of JSON/);
    } finally {
      t.rm();
    }
  });
}

Deno.test("files_list / files_find: the audit's 5000 long names stay within the cap", async () => {
  const t = appTree();
  try {
    for (let i = 0; i < 5000; i++) fs.writeFileSync(`${t.app}/${long(i)}`, "");
    for (const tool of ["files_list", "files_find"] as const) {
      const r = await call(tool, ARGS[tool], t.e);
      const data: Json = ok(r);
      assert.ok(blockBytes(r) <= CAP, `${tool}: ${blockBytes(r)} bytes`);
      assert.ok(blockBytes(r) > CAP - 300, `${tool}: filled up to the cap`);
      assert.equal(data.truncated, true);
      const items = data[ITEMS[tool]].map((x: Json) => x.path);
      assert.deepEqual(items, items.map((_: string, i: number) => long(i)), "a sorted prefix");
    }
  } finally {
    t.rm();
  }
});

Deno.test("files_list / files_find: every cap near the full size gives a fitting prefix", async () => {
  const t = appTree({ "a.txt": "a", "b/c.txt": "cc", "b/é.txt": "", "d": "" });
  try {
    for (const tool of ["files_list", "files_find"] as const) {
      const full = await run(tool, t.e, HUGE, 4);
      const s = blockBytes(full);
      const all: Json[] = (full.content[0] as { data: Json }).data[ITEMS[tool]];
      for (let cap = s - 400; cap <= s + 1; cap++) {
        const r = await run(tool, t.e, cap, 4);
        const data: Json = ok(r);
        const items: Json[] = data[ITEMS[tool]];
        assert.ok(blockBytes(r) <= cap || items.length === 0, `${tool} cap ${cap}`);
        assert.deepEqual(items, all.slice(0, items.length));
        assert.equal(data.truncated, cap < s, `${tool} cap ${cap}`);
      }
    }
  } finally {
    t.rm();
  }
});

const HAS_GIT = (() => {
  try {
    execFileSync("git", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

Deno.test({
  name: "git_status: entries stop at the json cap (at, below, above)",
  ignore: !HAS_GIT,
  fn: async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`u${String(i).padStart(3, "0")}\u0001.txt`] = "";
    const t = appTree(files);
    try {
      execFileSync("git", ["init", "-q", "-b", "main"], {
        cwd: t.root,
        env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", GIT_CONFIG_GLOBAL: "/dev/null" },
      });
      const full = await runGitStatus({}, t.e, HUGE);
      const s = blockBytes(full);
      const all: Json[] = (full.content[0] as { data: Json }).data.entries;
      assert.equal(all.length, 40);
      for (const cap of [s + 1, s, s - 1, s - 200, 200]) {
        const r = await runGitStatus({}, t.e, cap);
        const data: Json = ok(r);
        assert.ok(blockBytes(r) <= cap, `cap ${cap}`);
        assert.equal(data.truncated, cap < s, `cap ${cap}`);
        assert.deepEqual(data.entries, all.slice(0, data.entries.length));
        if (cap === s - 1) assert.equal(data.entries.length, 39);
      }
    } finally {
      t.rm();
    }
  },
});

Deno.test("fitPrefix / ItemBytes: exact sizes, and a cut always drops an item", () => {
  const shape = (xs: string[], cut: boolean) => ({ xs, cut });
  // {"xs":["aa","bb"],"cut":false} is 30 bytes, {"xs":["aa"],"cut":true} 24, {"xs":[],"cut":true} 20.
  assert.deepEqual(fitPrefix(["aa", "bb"], shape, 30), { items: ["aa", "bb"], cut: false });
  assert.deepEqual(fitPrefix(["aa", "bb"], shape, 29), { items: ["aa"], cut: true });
  assert.deepEqual(fitPrefix(["aa", "bb"], shape, 24), { items: ["aa"], cut: true });
  assert.deepEqual(fitPrefix(["aa", "bb"], shape, 23), { items: [], cut: true });
  // The cut shape is one byte smaller ("true" vs "false"), yet an item is still dropped.
  const flag = (xs: string[], cut: boolean) => ({ xs, truncated: cut });
  const full = Buffer.byteLength(JSON.stringify(flag(["aa", "bb"], false)));
  assert.deepEqual(fitPrefix(["aa", "bb"], flag, full - 1), { items: ["aa"], cut: true });
  const b = new ItemBytes(10);
  assert.equal(b.add({ a: 1 }), true);
  assert.equal(b.bytes, 7);
  assert.equal(b.add({ a: 2 }), false);
  assert.equal(b.bytes, 15);
});

Deno.test("fitJsonText: the escaped size of the kept prefix, checked against JSON.stringify", () => {
  const units = ["a", '"', "\\", "\n", "\u0001", "\u007f", "é", "€", "😀", "\u2028", "\ufffd"];
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let round = 0; round < 300; round++) {
    let text = "";
    for (let i = 0; i < 40; i++) text += units[Math.floor(rand() * units.length)];
    const full = Buffer.byteLength(JSON.stringify(text)) - 2;
    for (const max of [0, 1, 5, 6, Math.floor(full / 2), full - 1, full, full + 1]) {
      const kept = fitJsonText(text, max);
      assert.ok(text.startsWith(kept));
      assert.ok(Buffer.byteLength(JSON.stringify(kept)) - 2 <= max);
      const next = text.slice(0, kept.length + (text.codePointAt(kept.length)! > 0xffff ? 2 : 1));
      if (kept.length < text.length) {
        assert.ok(Buffer.byteLength(JSON.stringify(next)) - 2 > max, "the longest prefix");
      }
    }
  }
});

Deno.test("shell_exec: control-character output stays within the json cap", async () => {
  const t = appTree();
  try {
    const command = "head -c 65536 /dev/zero | tr '\\0' '\\1'; " +
      "head -c 65536 /dev/zero | tr '\\0' '\\1' >&2";
    const r = await call("shell_exec", { command, maxOutputBytes: 65536 }, t.e);
    const data: Json = ok(r);
    assert.ok(blockBytes(r) <= CAP, `${blockBytes(r)} bytes`);
    assert.ok(blockBytes(r) > CAP - 16, "filled up to the cap");
    assert.equal(data.stdout.truncated, true);
    assert.equal(data.stderr.truncated, true);
    assert.equal(data.stdout.bytes, 65536);
    assert.equal(data.stdout.text, "\u0001".repeat(data.stdout.text.length));
  } finally {
    t.rm();
  }
});

Deno.test("shell_exec: the json cap — at, below and above (one stream small)", async () => {
  const t = appTree();
  try {
    const command = "printf 'x%.0s' $(seq 300); printf 'e' >&2";
    const full = await runShellExec({ command }, t.e, HUGE);
    const s = blockBytes(full);
    const durationDigits = (r: ToolResult) =>
      String((r.content[0] as { data: Json }).data.durationMs).length;
    for (const cap of [s + 1, s, s - 1, s - 100]) {
      const r = await runShellExec({ command }, t.e, cap);
      const data: Json = ok(r);
      // durationMs may differ in digits between runs: allow for it.
      const slack = durationDigits(r) - durationDigits(full);
      assert.ok(blockBytes(r) <= cap + Math.max(0, slack), `cap ${cap}`);
      assert.equal(data.stderr.text, "e", "the small stream is kept whole");
      if (cap < s - 5) {
        assert.equal(data.stdout.truncated, true);
        assert.ok(data.stdout.text.length < 300);
      }
      if (cap > s + 5) assert.equal(data.stdout.text.length, 300);
    }
  } finally {
    t.rm();
  }
});
