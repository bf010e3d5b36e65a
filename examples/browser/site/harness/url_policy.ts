/**
 * Which URLs `open_url` may open: http(s) on the harness's own app origin, and `file:`
 * URLs of regular files inside an Artifact of the eval's scope — which Chromium never
 * opens itself: the app serves them (see app_server.ts). Everything else is refused.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { FileRefused, readScopedFile } from "./scoped_file.ts";

/** Thrown for a URL outside the policy (its message never repeats the URL). */
export class UrlRefused extends Error {
  /** Stable code. */
  readonly code = "URL_REFUSED";
}

/** What the policy needs of the app: its origin and a way to share a scope file. */
export interface AppOrigin {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  /** Share the folder of the scope file at `real`; the file's URL path. */
  share(real: string, roots: string[]): string;
}

/**
 * Resolve `raw` (an absolute URL, or a path such as `/` on the app) to the URL to open;
 * a `file:` URL becomes the app's URL of that file. `roots` are the scope's real paths.
 * Throws {@linkcode UrlRefused} when it is not allowed.
 *
 * @example
 * ```ts
 * import { allowedUrl } from "./url_policy.ts";
 * const app = { origin: "http://127.0.0.1:8000", share: () => "/" };
 * allowedUrl("/", app, []); // "http://127.0.0.1:8000/"
 * ```
 */
export function allowedUrl(raw: string, app: AppOrigin, roots: string[]): string {
  let url: URL;
  try {
    url = new URL(raw, app.origin + "/");
  } catch {
    throw new UrlRefused("open_url: the url is not a valid URL.");
  }
  if (url.protocol === "http:" || url.protocol === "https:") {
    if (url.origin !== app.origin || url.username !== "" || url.password !== "") {
      throw new UrlRefused(
        `open_url: only the session's own app (${app.origin}) may be opened over http(s).`,
      );
    }
    return url.href;
  }
  if (url.protocol === "file:") {
    let path: string;
    try {
      path = fileURLToPath(url);
    } catch {
      throw new UrlRefused("open_url: the file URL is not a local path.");
    }
    try {
      const { real } = readScopedFile(path, roots);
      return app.origin + app.share(real, roots) + url.hash;
    } catch (e) {
      if (e instanceof FileRefused) throw new UrlRefused(`open_url: ${e.message}`);
      throw e;
    }
  }
  throw new UrlRefused("open_url: only http, https and file URLs are allowed.");
}
