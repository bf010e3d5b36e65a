/**
 * Make a JavaScript bundle ASCII-only without changing what it does, so V8 holds its
 * source as a one-byte string: a source with even one character above U+007F is decoded
 * from UTF-8 and scanned as UTF-16, which was ~15% of the single executable's start-up
 * work above Node's own (the CLI bundle is 2.5 MiB and had 18 such characters, in
 * comments and one template).
 *
 * Each character is rewritten by where it stands, found with TypeScript's parser (npm
 * `typescript`, already the npm build's compiler): in a string or regular-expression
 * literal or an identifier, as a `\u` escape (the same value); in an untagged or
 * `String.raw` template, as a `${"\u…"}` substitution (the same string: a raw template
 * would keep a `\u` escape as six characters); in a comment, as escape text; as
 * whitespace, as a space or a newline of the same kind. Anywhere else — a template with
 * another tag, whose strings the tag sees — it throws, naming the line.
 *
 * @module
 */

import ts from "typescript";

/** Where a non-ASCII character stands, and how it is rewritten there. */
type Rewrite = "escape" | "substitute" | "trivia";

function hex4(code: number): string {
  return `\\u${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** `\u` escapes of one character (a surrogate pair for one above U+FFFF). */
function escapeChar(ch: string): string {
  return [...ch].length === 1 && ch.length === 2
    ? hex4(ch.charCodeAt(0)) + hex4(ch.charCodeAt(1))
    : hex4(ch.charCodeAt(0));
}

/** An identifier: `\u{…}` covers every code point (a pair of `\u` escapes is not valid). */
function escapeIdentifierChar(ch: string): string {
  return `\\u{${ch.codePointAt(0)!.toString(16).toUpperCase()}}`;
}

const LINE_TERMINATORS = new Set(["\u2028", "\u2029"]);

function templateTagIsRawOrNone(node: ts.Node): boolean {
  let t: ts.Node = node;
  // A template literal's parts sit under TemplateExpression / TemplateSpan.
  while (t.parent && (ts.isTemplateSpan(t.parent) || ts.isTemplateExpression(t.parent))) {
    t = t.parent;
  }
  const parent = t.parent;
  if (!parent || !ts.isTaggedTemplateExpression(parent) || parent.template !== t) return true;
  const tag = parent.tag;
  return ts.isPropertyAccessExpression(tag) && ts.isIdentifier(tag.expression) &&
    tag.expression.text === "String" && tag.name.text === "raw";
}

/** The innermost token-like node containing `pos`, or undefined (trivia). */
function tokenAt(sf: ts.SourceFile, pos: number): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (pos < node.getStart(sf) || pos >= node.end) return;
    found = node;
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(sf, visit);
  return found;
}

function classify(sf: ts.SourceFile, pos: number, line: number): Rewrite | "identifier" {
  const node = tokenAt(sf, pos);
  if (node === undefined) return "trivia";
  switch (node.kind) {
    case ts.SyntaxKind.StringLiteral:
    case ts.SyntaxKind.RegularExpressionLiteral:
      return "escape";
    case ts.SyntaxKind.Identifier:
    case ts.SyntaxKind.PrivateIdentifier:
      return "identifier";
    case ts.SyntaxKind.NoSubstitutionTemplateLiteral:
    case ts.SyntaxKind.TemplateHead:
    case ts.SyntaxKind.TemplateMiddle:
    case ts.SyntaxKind.TemplateTail:
      if (templateTagIsRawOrNone(node)) return "substitute";
      throw new Error(
        `bundle line ${line}: a non-ASCII character in a tagged template (the tag sees its ` +
          "text); write it as an escape or a substitution in the source",
      );
    default:
      // Inside a larger node but in none of its literals or names: between its tokens
      // (the only tokens that can hold such a character are those above), i.e. trivia.
      return "trivia";
  }
}

/**
 * The bundle with every character above U+007F rewritten as ASCII (see the module
 * documentation); the same source when it is ASCII already.
 *
 * @example
 * ```ts
 * import { asciiBundle } from "./ascii_bundle.ts";
 * asciiBundle('const s = "a\u2014b"; // \u2192'); // 'const s = "a\\u2014b"; // \\u2192'
 * ```
 */
export function asciiBundle(source: string): string {
  // deno-lint-ignore no-control-regex
  if (/^[\x00-\x7f]*$/.test(source)) return source;
  const sf = ts.createSourceFile(
    "bundle.js",
    source,
    ts.ScriptTarget.Latest,
    true,
    ts.ScriptKind.JS,
  );
  const out: string[] = [];
  let last = 0;
  // deno-lint-ignore no-control-regex
  for (const m of source.matchAll(/[^\x00-\x7f]/gu)) {
    const pos = m.index!;
    const ch = m[0];
    const line = sf.getLineAndCharacterOfPosition(pos).line + 1;
    const kind = classify(sf, pos, line);
    out.push(source.slice(last, pos));
    if (kind === "escape") out.push(escapeChar(ch));
    else if (kind === "identifier") out.push(escapeIdentifierChar(ch));
    else if (kind === "substitute") out.push(`\${"${escapeChar(ch)}"}`);
    else if (LINE_TERMINATORS.has(ch)) out.push("\n");
    else if (/^\s$/u.test(ch)) out.push(" ");
    else out.push(escapeChar(ch)); // comment text
    last = pos + ch.length;
  }
  out.push(source.slice(last));
  return out.join("");
}
