/**
 * The documentation the npm package carries: README.md and everything under docs/, so the
 * README's links to docs/ work in the installed package (and on the registry's page).
 * Links to files the package does not carry (ARCHITECTURE.md, examples/) are turned into
 * plain text that names the file in the source repository: no link in the package is dead.
 *
 * @module
 */

import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";

/** Where a packaged document's link goes when its target is not in the package. */
const ELSEWHERE = "in the toolhost source repository";

/**
 * The package-relative paths of the documents the npm package carries: `README.md` and
 * every file under `docs/`, sorted.
 *
 * @example
 * ```ts
 * import { packagedDocs } from "./npm_docs.ts";
 * const docs = packagedDocs(new URL("..", import.meta.url).pathname);
 * docs.includes("README.md"); // true
 * ```
 */
export function packagedDocs(root: string): string[] {
  const out = ["README.md"];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
      const p = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(p);
    }
  };
  walk("docs");
  return out.sort();
}

/**
 * Rewrite the relative links of `markdown` (the document at package-relative `from`) whose
 * target is not in `shipped`: `[text](target)` becomes `text (`path` in the toolhost
 * source repository)`. Links into the package, URLs, `#anchors` and code are left as they
 * are.
 *
 * @example
 * ```ts
 * import { unlinkOutside } from "./npm_docs.ts";
 * const shipped = new Set(["README.md", "docs/mcp.md"]);
 * unlinkOutside("[MCP](docs/mcp.md), [map](ARCHITECTURE.md)", "README.md", shipped);
 * // "[MCP](docs/mcp.md), map (`ARCHITECTURE.md` in the toolhost source repository)"
 * ```
 */
export function unlinkOutside(markdown: string, from: string, shipped: Set<string>): string {
  let fenced = false;
  return markdown.split("\n").map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return line;
    }
    if (fenced) return line;
    // Odd parts are inline code spans: left alone.
    return line.split(/(`[^`]*`)/).map((part, i) =>
      i % 2 === 1 ? part : part.replace(
        /(!?)\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g,
        (whole, _bang: string, text: string, target: string) => {
          const path = outsideTarget(target, from, shipped);
          if (path === undefined) return whole;
          const label = text.replace(/`/g, "");
          return label === path || label === `${path}/`
            ? `\`${label}\` (${ELSEWHERE})`
            : `${text} (\`${path}\` ${ELSEWHERE})`;
        },
      )
    ).join("");
  }).join("\n");
}

/** The repository path of a relative link's target when the package lacks it, else undefined. */
function outsideTarget(target: string, from: string, shipped: Set<string>): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) return undefined;
  const file = decodeURIComponent(target.split("#")[0]);
  const path = posix.normalize(posix.join(posix.dirname(from), file)).replace(/\/$/, "");
  if (shipped.has(path)) return undefined;
  if ([...shipped].some((s) => s.startsWith(`${path}/`))) return undefined; // a shipped folder
  return path;
}

/**
 * Copy the packaged documents from the repository `root` into the package folder `out`,
 * Markdown with {@link unlinkOutside} applied; returns their package-relative paths.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { copyPackagedDocs } from "./npm_docs.ts";
 * const root = new URL("..", import.meta.url).pathname;
 * copyPackagedDocs(root, mkdtempSync(join(tmpdir(), "docs-"))).includes("docs/mcp.md"); // true
 * ```
 */
export function copyPackagedDocs(root: string, out: string): string[] {
  const docs = packagedDocs(root);
  const shipped = new Set(docs);
  for (const rel of docs) {
    mkdirSync(dirname(join(out, rel)), { recursive: true });
    if (rel.endsWith(".md")) {
      const text = readFileSync(join(root, rel), "utf8");
      writeFileSync(join(out, rel), unlinkOutside(text, rel, shipped));
    } else cpSync(join(root, rel), join(out, rel));
  }
  return docs;
}
