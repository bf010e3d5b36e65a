/**
 * What a harness pays at import (issue 19: harness-kit start-to-ready ≤ +20 ms): the
 * modules Deno loads for `harness-kit/mod.ts` — every static import and every literal
 * dynamic `import("...")`, which Deno reads and parses up front — stay within harness-kit
 * and three small lib files, with no npm package, no registry, and no `node:fs` (loaded
 * on first use). Timing itself is measured by `deno task bench --only sessions`.
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface InfoDep {
  code?: { specifier: string };
  isDynamic?: boolean;
}
interface InfoModule {
  specifier: string;
  dependencies?: InfoDep[];
}

/** Modules reachable through code (not type-only) edges; `withDynamic` follows literal
 * dynamic imports too (Deno loads their graph with the importer's). */
function codeGraph(entry: string, withDynamic: boolean): Set<string> {
  const out = execFileSync(Deno.execPath(), ["info", "--json", entry], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  const modules = new Map<string, InfoModule>();
  for (const m of JSON.parse(out.toString()).modules as InfoModule[]) {
    modules.set(m.specifier, m);
  }
  const seen = new Set<string>();
  const todo = [new URL(entry, `file://${ROOT}`).href];
  while (todo.length > 0) {
    const s = todo.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    for (const d of modules.get(s)?.dependencies ?? []) {
      if (d.code !== undefined && (withDynamic || !d.isDynamic)) todo.push(d.code.specifier);
    }
  }
  return seen;
}

const rel = (s: string) => s.replace(`file://${ROOT}`, "");

Deno.test("harness-kit/mod.ts loads only harness-kit and three small lib modules", () => {
  const loaded = [...codeGraph("harness-kit/mod.ts", true)].map(rel);
  const allowedLib = new Set([
    "lib/images/detect.ts",
    "lib/text/text_clean.ts",
    "lib/results/types.ts",
  ]);
  const outside = loaded.filter((s) =>
    !s.startsWith("harness-kit/") && !s.startsWith("node:") && !allowedLib.has(s)
  );
  assert.deepEqual(outside, [], "modules a harness would load at start-up");
  assert.ok(!loaded.includes("harness-kit/testing.ts"), "testing.ts is loaded on first use");
});

Deno.test("harness-kit/mod.ts imports no node:fs statically", () => {
  const loaded = [...codeGraph("harness-kit/mod.ts", false)].map(rel);
  assert.ok(loaded.includes("node:net"), "the graph walk sees node built-ins");
  assert.ok(!loaded.includes("node:fs"), "node:fs is loaded on first use (lazy_fs.ts)");
});
