/**
 * Turning an artifact ref's `uri` into a clean absolute path, fail-closed.
 *
 * @module
 */

import { ArtifactRefError } from "./errors.ts";

const SCHEME = "file://";
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const HEX = /^[0-9A-Fa-f]{2}$/;
const ESCAPE_LEFT = /%[0-9A-Fa-f]{2}/;

/**
 * Convert `file:///absolute/path` into its decoded absolute path, checking, in order:
 * the scheme (`uri-scheme`), no host including `localhost` (`uri-host`), no query
 * (`uri-query`), no fragment (`uri-fragment`), well-formed percent escapes decoding to
 * valid UTF-8 — so overlong forms such as `%c0%ae` fail (`uri-encoding`), no NUL
 * (`path-nul`), no backslash (`path-backslash`), no percent escape left after one
 * decoding pass — so `%252e%252e` fails (`path-double-encoded`), and a clean path: no
 * `.` or `..` element, no empty element (`//`), no trailing `/` (`path-not-clean`).
 *
 * @example
 * ```ts
 * import { uriToCleanPath } from "./uri.ts";
 * uriToCleanPath("file:///tmp/out/a%20b.txt"); // "/tmp/out/a b.txt"
 * ```
 */
export function uriToCleanPath(uri: string): string {
  if (!uri.startsWith(SCHEME) || uri.length === SCHEME.length) {
    throw new ArtifactRefError("uri-scheme");
  }
  const rest = uri.slice(SCHEME.length);
  if (!rest.startsWith("/")) throw new ArtifactRefError("uri-host");
  if (rest.includes("?")) throw new ArtifactRefError("uri-query");
  if (rest.includes("#")) throw new ArtifactRefError("uri-fragment");
  const path = percentDecode(rest);
  if (path.includes("\0")) throw new ArtifactRefError("path-nul");
  if (path.includes("\\")) throw new ArtifactRefError("path-backslash");
  if (ESCAPE_LEFT.test(path)) throw new ArtifactRefError("path-double-encoded");
  for (const element of path.slice(1).split("/")) {
    if (element === "" || element === "." || element === "..") {
      throw new ArtifactRefError("path-not-clean");
    }
  }
  return path;
}

const encoder = new TextEncoder();

function percentDecode(s: string): string {
  if (LONE_SURROGATE.test(s)) throw new ArtifactRefError("uri-encoding");
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      const hex = s.slice(i + 1, i + 3);
      if (!HEX.test(hex)) throw new ArtifactRefError("uri-encoding");
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (c < 0x80) {
      bytes.push(c);
    } else {
      const cp = s.codePointAt(i) as number;
      for (const b of encoder.encode(String.fromCodePoint(cp))) bytes.push(b);
      if (cp > 0xffff) i++;
    }
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(
      new Uint8Array(bytes),
    );
  } catch {
    throw new ArtifactRefError("uri-encoding");
  }
}
