/**
 * scripts/sea_code_cache.ts: the single executable's code cache is made after the bundle
 * ran its start-up paths (so it holds far more compiled functions than one made right
 * after compiling), and the same node accepts it for the launcher's source.
 *
 * @module
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bundleCli, findNode, ROOT } from "../../scripts/build_sea.ts";
import { asciiBundle } from "../../scripts/ascii_bundle.ts";
import { makeCodeCache } from "../../scripts/sea_code_cache.ts";
import { WRAPPER_HEAD, WRAPPER_TAIL } from "../../scripts/sea_wrapper.ts";

/** Node script: does V8 accept cache argv[2] for the wrapped bundle argv[1]? */
const ACCEPTS = 'const vm = require("node:vm"), fs = require("node:fs");' +
  "const [src, cache] = process.argv.slice(1);" +
  "const code = process.env.TH_HEAD + fs.readFileSync(src, 'latin1') + process.env.TH_TAIL;" +
  'const s = new vm.Script(code, { filename: "toolhost.cjs", cachedData: fs.readFileSync(cache) });' +
  "process.stdout.write(String(!s.cachedDataRejected));";

let node: string | undefined;
try {
  node = findNode().path;
} catch (e) {
  console.log(`SKIP SEA code cache: no SEA-capable node (${(e as Error).message})`);
}

Deno.test({
  name: "the code cache holds the start-up paths' functions, and node accepts it",
  ignore: node === undefined,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "toolhost_sea_cache_test_" });
    try {
      const bundle = join(dir, "toolhost.cjs");
      bundleCli(bundle);
      writeFileSync(bundle, asciiBundle(readFileSync(bundle, "utf8")));
      const warm = join(dir, "warm.cache");
      const lines: string[] = [];
      await makeCodeCache(node!, bundle, warm, { root: ROOT, log: (l) => lines.push(l) });
      assert.deepEqual(lines, [], "the start-up paths ran to the end");
      // The fallback: a cache made right after compiling, for comparison.
      const cold = join(dir, "cold.cache");
      await makeCodeCache(node!, bundle, cold, {
        root: join(dir, "no-such-root"),
        timeoutMs: 60_000,
      });
      assert.ok(
        statSync(warm).size > 1.5 * statSync(cold).size,
        `warm ${statSync(warm).size} B vs compile-only ${statSync(cold).size} B`,
      );
      for (const cache of [warm, cold]) {
        const ok = execFileSync(node!, ["-e", ACCEPTS, bundle, cache], {
          encoding: "utf8",
          env: { TH_HEAD: WRAPPER_HEAD, TH_TAIL: WRAPPER_TAIL },
        });
        assert.equal(ok, "true", `${cache} rejected`);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
