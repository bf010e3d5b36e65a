/**
 * Which URLs `open_url` may open: http(s) on the harness's own app origin, and `file:`
 * URLs whose real path lies inside an Artifact of the eval's scope. Everything else is
 * refused.
 *
 * @module
 */

import { realpathSync } from "node:fs";
import { sep } from "node:path";
import { fileURLToPath } from "node:url";

/** Thrown for a URL outside the policy (its message never repeats the URL). */
export class UrlRefused extends Error {
  /** Stable code. */
  readonly code = "URL_REFUSED";
}

function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Resolve `raw` (an absolute URL, or a path such as `/` on the app) to the URL to open;
 * throws {@linkcode UrlRefused} when it is not allowed.
 *
 * @example
 * ```ts
 * import { allowedUrl } from "./url_policy.ts";
 * allowedUrl("/", "http://127.0.0.1:8000", []); // "http://127.0.0.1:8000/"
 * ```
 */
export function allowedUrl(raw: string, origin: string, scopeRoots: string[]): string {
  let url: URL;
  try {
    url = new URL(raw, origin + "/");
  } catch {
    throw new UrlRefused("open_url: the url is not a valid URL.");
  }
  if (url.protocol === "http:" || url.protocol === "https:") {
    if (url.origin !== origin || url.username !== "" || url.password !== "") {
      throw new UrlRefused(
        `open_url: only the session's own app (${origin}) may be opened over http(s).`,
      );
    }
    return url.href;
  }
  if (url.protocol === "file:") {
    let real: string;
    try {
      real = realpathSync(fileURLToPath(url));
    } catch {
      throw new UrlRefused("open_url: the file does not exist or cannot be resolved.");
    }
    if (!scopeRoots.some((root) => inside(real, root))) {
      throw new UrlRefused("open_url: the file is outside the eval's scope.");
    }
    return url.href;
  }
  throw new UrlRefused("open_url: only http, https and file URLs are allowed.");
}
