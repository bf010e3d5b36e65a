/**
 * The npm package carries README.md and docs/ (scripts/npm_docs.ts), so the README's links
 * work where npm users read it; a link to a file the package lacks becomes plain text
 * naming the file in the source repository. No link in the packaged docs is dead.
 * (`deno task build:npm-consumer` checks the same on the packed tarball.)
 *
 * @module
 */

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { packageJson } from "../../scripts/build_npm.ts";
import { copyPackagedDocs, unlinkOutside } from "../../scripts/npm_docs.ts";
import { anchorsOf, linksOf } from "./_links.ts";
import { ROOT } from "./_readme.ts";

Deno.test("npm docs: README and docs/ are packed, and every link in them resolves inside the package", () => {
  const out = mkdtempSync(join(tmpdir(), "toolhost_npm_docs_"));
  try {
    const docs = copyPackagedDocs(ROOT, out);
    for (const d of ["README.md", "docs/manifest.md", "docs/harness.md", "docs/mcp.md"]) {
      assert.ok(docs.includes(d), d);
    }
    const dead: string[] = [];
    let checked = 0;
    for (const doc of docs.filter((d) => d.endsWith(".md"))) {
      for (const link of linksOf(readFileSync(join(out, doc), "utf8"))) {
        checked++;
        const [path, anchor] = link.split("#", 2);
        const target = path === "" ? join(out, doc) : join(out, dirname(doc), path);
        if (!existsSync(target)) dead.push(`${doc} → ${link}`);
        else if (anchor !== undefined && target.endsWith(".md")) {
          if (!anchorsOf(readFileSync(target, "utf8")).has(anchor)) dead.push(`${doc} → ${link}`);
        }
      }
    }
    assert.deepEqual(dead, []);
    assert.ok(checked > 20, `only ${checked} links: the scan is broken`);
    // The README's own links to docs/ survive as links; the contributor map is named instead.
    const readme = readFileSync(join(out, "README.md"), "utf8");
    assert.match(readme, /\]\(docs\/manifest\.md\)/);
    assert.match(readme, /`ARCHITECTURE\.md` \(in the toolhost source repository\)/);
    // Only links changed: the packed README says everything the repository's does.
    const strip = (t: string) => t.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/\W+/g, "");
    const packed = strip(readme);
    for (const word of readFileSync(join(ROOT, "README.md"), "utf8").split(/\s+/)) {
      const w = strip(word).replace(/^\W+/, "");
      if (w !== "" && !/\]\(/.test(word)) assert.ok(packed.includes(w), w);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

Deno.test("npm docs: package.json packs docs/ next to README.md", () => {
  const pkg = packageJson({ version: "1.2.3", imports: {} });
  assert.ok(pkg.files.includes("README.md") && pkg.files.includes("docs/"), `${pkg.files}`);
});

Deno.test("npm docs: unlinkOutside keeps links into the package, URLs, anchors and code", () => {
  const shipped = new Set(["README.md", "docs/mcp.md", "docs/a.png"]);
  const text = [
    "[MCP](docs/mcp.md#serve) and [web](https://example.com) and [here](#top)",
    "[map](ARCHITECTURE.md), [ARCHITECTURE.md](ARCHITECTURE.md), `[x](nope.md)`",
    "```",
    "[y](nope.md)",
    "```",
  ].join("\n");
  assert.equal(
    unlinkOutside(text, "README.md", shipped),
    [
      "[MCP](docs/mcp.md#serve) and [web](https://example.com) and [here](#top)",
      "map (`ARCHITECTURE.md` in the toolhost source repository), `ARCHITECTURE.md` " +
      "(in the toolhost source repository), `[x](nope.md)`",
      "```",
      "[y](nope.md)",
      "```",
    ].join("\n"),
  );
  assert.equal(
    unlinkOutside(
      "[README](../README.md), ![shot](a.png), [ex](../examples/browser/)",
      "docs/x.md",
      shipped,
    ),
    "[README](../README.md), ![shot](a.png), ex (`examples/browser` in the toolhost source repository)",
  );
});
