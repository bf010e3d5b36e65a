/**
 * bench/README.md's `--only` list names every section bench/run.ts accepts.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { SECTIONS } from "../../bench/run.ts";

Deno.test("bench/README.md: the --only list names every section", () => {
  const readme = readFileSync(new URL("../../bench/README.md", import.meta.url), "utf8");
  const block = readme.match(/--only pins +# one section: ([^\n]+(?:\n +# {3}[^\n]+)*)/);
  assert.ok(block, "the `--only pins` line of the usage block is gone");
  const listed = block[1].replaceAll(/\n +# +/g, " ").split("|").map((s) => s.trim());
  assert.deepEqual(listed, SECTIONS.map((s) => s.name));
});
