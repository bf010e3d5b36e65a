/**
 * Every relative link in README.md, ARCHITECTURE.md and docs/*.md resolves: the file (or
 * folder) exists, and a `#anchor` names a heading of the target Markdown file (GitHub's
 * heading ids: lower case, punctuation dropped, spaces to hyphens, `-1`, `-2` for repeats).
 *
 * @module
 */

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { anchorsOf, linksOf } from "./_links.ts";
import { docFiles, ROOT } from "./_readme.ts";

Deno.test("docs: every relative link and #anchor in README, ARCHITECTURE and docs/ resolves", () => {
  const files = [...docFiles(), join(ROOT, "ARCHITECTURE.md")].filter((f) => existsSync(f));
  const dead: string[] = [];
  let checked = 0;
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const link of linksOf(text)) {
      checked++;
      const [path, anchor] = link.split("#", 2);
      const target = path === "" ? file : join(dirname(file), decodeURIComponent(path));
      const where = `${relative(ROOT, file)} → ${link}`;
      if (!existsSync(target)) {
        dead.push(`${where}: no such file`);
      } else if (anchor !== undefined && target.endsWith(".md")) {
        if (!anchorsOf(readFileSync(target, "utf8")).has(anchor)) {
          dead.push(`${where}: no such heading`);
        }
      }
    }
  }
  assert.deepEqual(dead, []);
  assert.ok(checked > 0, "no relative link was found: the scan is broken");
});

Deno.test("docs: anchorsOf and linksOf follow GitHub's rules", () => {
  const ids = anchorsOf(
    "# Trust: a lock file, limits\n## Five minutes\n## Five minutes\n```\n# no\n```",
  );
  assert.deepEqual([...ids], ["trust-a-lock-file-limits", "five-minutes", "five-minutes-1"]);
  assert.deepEqual(
    linksOf(
      "see [a](docs/x.md#y), [b](https://e.com), `[c](nope.md)` and [d](#z)\n```\n[e](f)\n```",
    ),
    ["docs/x.md#y", "#z"],
  );
});
