/**
 * `files_search` with the host's own `stat` and listing (`useHostStat`, `useHostReadDir`,
 * which the CLI sets to Deno's): the host's stat sizes every searched file, and the matches,
 * the skipped non-regular entries and the size bound are those of `node:fs`.
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { NATIVE_LIMITS } from "../../lib/native/limits.ts";
import { useHostStat } from "../../lib/pins/host_fs.ts";
import { withDenoHost } from "../helpers/deno_host.ts";
import { appTree, call, type Json, ok } from "./_helpers.ts";

Deno.test("files_search: the host's stat gives node:fs's matches, skips and bounds", async () => {
  const big = "needle\n" + "x".repeat(NATIVE_LIMITS.searchMaxFileBytes);
  const t = appTree({
    "a.ts": "const needle = 1;\n",
    "sub/b.md": "no\nneedle here\n",
    "big.txt": big,
    "link": { symlink: "a.ts" },
  });
  try {
    execFileSync("mkfifo", [`${t.app}/sub/pipe`]);
    const plain: Json = ok(await call("files_search", { query: "needle" }, t.e));
    assert.deepEqual(plain.matches.map((m: Json) => m.path), ["a.ts", "sub/b.md"]);
    let stats = 0;
    const host: Json = await withDenoHost(() => {
      useHostStat((p) => (stats++, Deno.statSync(p)));
      return call("files_search", { query: "needle" }, t.e).then(ok);
    });
    assert.deepEqual(host, plain);
    assert.ok(stats >= 3, `the host's stat sized the files (${stats} calls)`);
    const one: Json = await withDenoHost(() =>
      call("files_search", { query: "needle", path: "sub/b.md" }, t.e).then(ok)
    );
    assert.deepEqual(one.matches, [{ path: "sub/b.md", line: 2, column: 1, text: "needle here" }]);
  } finally {
    t.rm();
  }
});
