/**
 * The ways common encoders write one text inside another format, each applied to the
 * whole text the way that encoder does (every occurrence of a character escaped the same
 * way), so a protected value is recognized in what a file or a program holds when it was
 * written by one of them — not only in the form JavaScript's own encoders give:
 *
 * - JSON strings: `JSON.stringify`; non-ASCII as `\uxxxx` (Python's `ensure_ascii`) and
 *   as `\uXXXX` (Java); `/` as `\/` (PHP's `json_encode`, many Java writers); `<`, `>`,
 *   `&`, U+2028 and U+2029 as `\u003c`… (Go's `encoding/json`, its default);
 * - quoted string literals: `'` escaped as `\'` (JavaScript, Python's `repr`);
 * - URLs: `encodeURIComponent` and `encodeURI`, with upper- and lower-case hex, and
 *   `application/x-www-form-urlencoded` (`URLSearchParams`, HTML forms: `+` for a space);
 * - HTML text and attributes: `&amp; &lt; &gt;` with `"` and `'` as `&quot; &#39;`
 *   (PHP), `&quot; &#x27;` (Python's `html.escape`) or `&#34; &#39;` (Go);
 * - shell words, as environment dumps print them: double-quoted with `\` before `$`,
 *   `` ` ``, `"` and `\` (bash's `export -p`, `declare -p`), single-quoted with `'` as
 *   `'\''` (bash's `set`) or `'"'"'` (dash's `set`, `export -p`), and backslash-quoted
 *   (bash's `printf %q`).
 *
 * Each is one entry of {@link ESCAPERS}: a new encoder is one more line there, and every
 * matcher, scanner and stream redactor built from the value's forms recognizes it.
 *
 * @module
 */

/** One encoder's way of writing a text inside another format. */
export type Escaper = (s: string) => string;

const json: Escaper = (s) => JSON.stringify(s).slice(1, -1);
const hex4 = (c: string) => c.charCodeAt(0).toString(16).padStart(4, "0");
const asciiJson: Escaper = (s) => json(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${hex4(c)}`);
const asciiJsonUpper: Escaper = (s) =>
  json(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${hex4(c).toUpperCase()}`);
const jsonSlash: Escaper = (s) => json(s).replaceAll("/", "\\/");
const asciiJsonSlash: Escaper = (s) => asciiJson(s).replaceAll("/", "\\/");
const jsonHtmlSafe: Escaper = (s) => json(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${hex4(c)}`);
const quotedLiteral: Escaper = (s) => json(s).replaceAll('\\"', '"').replaceAll("'", "\\'");

/** Percent-encoding that cannot fail: a lone surrogate has no such form (kept as is). */
function percent(encode: (s: string) => string): Escaper {
  return (s) => {
    try {
      return encode(s);
    } catch {
      return s;
    }
  };
}

const lowerHex = (e: Escaper): Escaper => (s) =>
  e(s).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
const component = percent(encodeURIComponent);
const uri = percent(encodeURI);
const formEncoded = percent((s) => new URLSearchParams([["", s]]).toString().slice(1));

/** Characters bash's `printf %q` puts a backslash before (inside a word). */
const SHELL_SPECIAL = /[ \t\n'"\\|&;()<>!{}*[?\]^$`,]/g;
const shellDouble: Escaper = (s) => s.replace(/[$`"\\]/g, "\\$&");
const shellSingle = (quote: string): Escaper => (s) => s.replaceAll("'", quote);
const shellBackslash: Escaper = (s) => s.replace(SHELL_SPECIAL, "\\$&");

function html(quot: string, apos: string): Escaper {
  return (s) =>
    s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
      .replaceAll('"', quot).replaceAll("'", apos);
}

/**
 * The encoders toolhost's own output uses (the identity first): JSON strings as
 * `JSON.stringify` and with non-ASCII as `\uxxxx`, and `encodeURIComponent` /
 * `encodeURI`. Enough for a text toolhost itself made, such as an odek render's
 * flattened line.
 *
 * @example
 * ```ts
 * import { OWN_ESCAPERS } from "./escapes.ts";
 * OWN_ESCAPERS.map((e) => e("a é")); // ["a é", "a é", "a \\u00e9", "a%20%C3%A9", "a%20%C3%A9"]
 * ```
 */
export const OWN_ESCAPERS: readonly Escaper[] = [(s) => s, json, asciiJson, component, uri];

/**
 * Every encoder whose output a form is taken from: toolhost's own, then the ones other
 * programs write files with. Most leave a value of letters, digits and `-` unchanged: its
 * forms stay few, as duplicates go.
 *
 * @example
 * ```ts
 * import { ESCAPERS } from "./escapes.ts";
 * new Set(ESCAPERS.map((e) => e("a/b&c"))).has("a\\/b&c"); // true: PHP's json_encode
 * ```
 */
export const ESCAPERS: readonly Escaper[] = [
  ...OWN_ESCAPERS,
  asciiJsonUpper,
  jsonSlash,
  asciiJsonSlash,
  jsonHtmlSafe,
  quotedLiteral,
  lowerHex(component),
  lowerHex(uri),
  formEncoded,
  lowerHex(formEncoded),
  html("&quot;", "&#39;"),
  html("&quot;", "&#x27;"),
  html("&#34;", "&#39;"),
  shellDouble,
  shellSingle("'\\''"),
  shellSingle(`'"'"'`),
  shellBackslash,
];
