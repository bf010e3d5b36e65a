/**
 * Markdown link helpers for the docs tests: the relative link targets of a text and the
 * anchor ids of its headings, as GitHub computes them.
 *
 * @module
 */

/**
 * GitHub's anchor ids of a Markdown file's headings (code blocks skipped).
 *
 * @example
 * ```ts
 * import { anchorsOf } from "./_links.ts";
 * anchorsOf("# Five minutes\n").has("five-minutes"); // true
 * ```
 */
export function anchorsOf(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1].toLowerCase().replace(/<[^>]*>/g, "").replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

/**
 * The relative link targets of a Markdown text (inline links and images, code skipped).
 *
 * @example
 * ```ts
 * import { linksOf } from "./_links.ts";
 * linksOf("[MCP](docs/mcp.md), [web](https://e.com)"); // ["docs/mcp.md"]
 * ```
 */
export function linksOf(markdown: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const text = line.replace(/`[^`]*`/g, "");
    for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(m[1])) out.push(m[1]);
    }
  }
  return out;
}
