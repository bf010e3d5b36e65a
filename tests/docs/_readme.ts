/**
 * Read the user-facing docs as tests see them: the fenced code blocks under a heading of
 * README.md (or of a docs/ page, once a section moved there), and a PATH with the installed
 * `toolhost` and Node.js but no deno.
 *
 * @module
 */

import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT: string = fileURLToPath(new URL("../../", import.meta.url));

/** The user-facing Markdown files: README.md, then docs/*.md. */
export function docFiles(): string[] {
  const docs = join(ROOT, "docs");
  const pages = existsSync(docs)
    ? readdirSync(docs).filter((f) => f.endsWith(".md")).sort().map((f) => join(docs, f))
    : [];
  return [join(ROOT, "README.md"), ...pages];
}

/**
 * The fenced blocks of language `lang` in the section whose heading matches `heading`
 * (up to the next heading of the same or a higher level), searched in README.md first,
 * then in docs/. Throws when no such section or block exists: a test built on it fails
 * when the docs lose the example.
 *
 * @example
 * ```ts
 * import { blocksUnder } from "./_readme.ts";
 * console.log(blocksUnder(/^Five minutes/, "sh")[0].split("\n")[0]);
 * ```
 */
export function blocksUnder(heading: RegExp, lang: string): string[] {
  for (const file of docFiles()) {
    const lines = readFileSync(file, "utf8").split("\n");
    const start = lines.findIndex((l) => /^#{1,6} /.test(l) && heading.test(l.replace(/^#+ /, "")));
    if (start < 0) continue;
    const level = /^#+/.exec(lines[start])![0].length;
    const blocks: string[] = [];
    let current: string[] | undefined;
    for (const line of lines.slice(start + 1)) {
      if (current === undefined) {
        const m = /^#+ /.exec(line);
        if (m && m[0].length - 1 <= level) break;
        if (line.trim() === "```" + lang) current = [];
      } else if (line.trim() === "```") {
        blocks.push(current.join("\n"));
        current = undefined;
      } else {
        current.push(line);
      }
    }
    if (blocks.length === 0) throw new Error(`${file}: no \`\`\`${lang} block under ${heading}`);
    return blocks;
  }
  throw new Error(`no section matching ${heading} in README.md or docs/`);
}

/**
 * A folder holding only a `node` symlink to the Node.js that runs the build, for a PATH
 * that has Node but no deno.
 *
 * @example
 * ```ts
 * import { nodeOnlyDir } from "./_readme.ts";
 * console.log(nodeOnlyDir("/tmp/x", "/usr/bin/node")); // /tmp/x/node-bin
 * ```
 */
export function nodeOnlyDir(parent: string, nodePath: string): string {
  const dir = join(parent, "node-bin");
  mkdirSync(dir, { recursive: true });
  symlinkSync(nodePath, join(dir, "node"));
  return dir;
}
