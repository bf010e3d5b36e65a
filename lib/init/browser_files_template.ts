/**
 * Templates of `toolhost init harness NAME --template browser`: `NAME_files.mjs` (the
 * session's loopback web server and the URL policy of open_url: a `file:` URL is served
 * by the harness from a file it opened and checked after the open, never opened by
 * Chromium) and `NAME.html` (the demo page it serves).
 *
 * @module
 */

/**
 * The web server and URL policy module (`NAME_files.mjs`).
 *
 * @example
 * ```ts
 * import { BROWSER_FILES } from "./browser_files_template.ts";
 * console.log(BROWSER_FILES.includes("O_NOFOLLOW")); // true
 * ```
 */
export const BROWSER_FILES: string = String
  .raw`// {{NAME}}_files.mjs: the {{NAME}} session's local web server and which URLs open_url may
// open. It serves the demo page {{NAME}}.html (so the demo needs no network) and, for a
// file: URL inside the eval's scope, that file's folder under /files/TOKEN/: the browser
// never opens a file: URL itself. Every file is opened by this server and checked after
// the open, so a symlink swapped in between a check and the browser's load (or pointing
// out of the scope from the start) is refused, never followed out of the scope.
// Part of the harness {{PROGRAM_PATH}}.
import { randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, realpathSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { basename, dirname, extname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** Largest file served from the scope, bytes. */
export const MAX_FILE_BYTES = 8 * 1024 * 1024;
/** Folders shared at once (the oldest is forgotten first). */
const MAX_SHARED = 100;
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** A URL or file open_url refuses (its message never repeats the URL or the path). */
export class Refused extends Error {}

function inside(path, root) {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The real paths of the scope's Artifacts (those that exist). */
export function scopeRoots(scope) {
  const roots = [];
  for (const entry of Object.values(scope ?? {})) {
    try {
      roots.push(realpathSync(entry.path));
    } catch { /* gone: nothing inside it can be opened */ }
  }
  return roots;
}

/**
 * The bytes of the regular file at path, if it lies inside one of roots. The file is
 * opened first (never following a symlink as the last component, never blocking on a
 * FIFO); then the real path is resolved, must be inside a root, and must be the very file
 * that was opened (same device and inode). Throws Refused otherwise.
 */
export function readScopedFile(path, roots) {
  let fd;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    throw new Refused("the file does not exist or cannot be opened (symlinks are not followed).");
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) throw new Refused("only regular files can be opened.");
    let real;
    let now;
    try {
      real = realpathSync(path);
      now = statSync(real);
    } catch {
      throw new Refused("the file changed while it was opened.");
    }
    if (now.dev !== opened.dev || now.ino !== opened.ino) {
      throw new Refused("the file changed while it was opened.");
    }
    if (!roots.some((root) => inside(real, root))) throw new Refused("the file is outside the eval's scope.");
    if (opened.size > MAX_FILE_BYTES) throw new Refused("the file is larger than 8 MiB.");
    const bytes = Buffer.alloc(Math.min(opened.size, MAX_FILE_BYTES) + 1);
    let length = 0;
    for (let n = 1; n > 0 && length < bytes.length; length += n) {
      n = readSync(fd, bytes, length, bytes.length - length, null);
    }
    if (length > MAX_FILE_BYTES) throw new Refused("the file is larger than 8 MiB.");
    return { bytes: bytes.subarray(0, length), real };
  } finally {
    closeSync(fd);
  }
}

/** Start the server on an OS-chosen loopback port; resolves to the app. */
export function serveApp() {
  const page = readFileSync(new URL("./{{NAME}}.html", import.meta.url));
  const shared = new Map(); // token -> { dir, roots }
  const server = createServer((req, res) => {
    const reply = (status, type, body) => {
      res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : body);
    };
    if (req.method !== "GET" && req.method !== "HEAD") return reply(405, "text/plain", "method not allowed\n");
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/" || path === "/index.html") return reply(200, TYPES[".html"], page);
    const m = /^\/files\/([0-9a-f]{32})\/(.+)$/.exec(path);
    const entry = m && shared.get(m[1]);
    if (!entry) return reply(404, "text/plain", "not found\n");
    let rel;
    try {
      rel = decodeURIComponent(m[2]);
    } catch {
      return reply(400, "text/plain", "bad path\n");
    }
    try {
      const { bytes, real } = readScopedFile(join(entry.dir, rel), entry.roots);
      return reply(200, TYPES[extname(real).toLowerCase()] ?? "application/octet-stream", bytes);
    } catch (error) {
      if (error instanceof Refused) return reply(403, "text/plain", "refused: " + error.message + "\n");
      throw error;
    }
  });
  /** Share the folder of the scope file at real; the URL path of that file. */
  function share(real, roots) {
    const dir = dirname(real);
    const key = JSON.stringify([dir, roots]);
    let token = [...shared].find(([, e]) => e.key === key)?.[0];
    if (token === undefined) {
      token = randomBytes(16).toString("hex");
      shared.set(token, { dir, roots, key });
      if (shared.size > MAX_SHARED) shared.delete(shared.keys().next().value);
    }
    return "/files/" + token + "/" + encodeURIComponent(basename(real));
  }
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const origin = "http://127.0.0.1:" + server.address().port;
      resolve({ origin, share, close: () => (server.closeAllConnections(), server.close()) });
    });
  });
}

/**
 * The URL to open for raw (an absolute URL, or a path such as / on the app): http(s) only
 * on the app's own origin; a file: URL only for a regular file inside the scope, opened
 * through the app; anything else is refused.
 */
export function resolveUrl(raw, app, roots) {
  let url;
  try {
    url = new URL(raw, app.origin + "/");
  } catch {
    throw new Refused("open_url: the url is not a valid URL.");
  }
  if (url.protocol === "http:" || url.protocol === "https:") {
    if (url.origin !== app.origin || url.username !== "" || url.password !== "") {
      throw new Refused("open_url: only the session's own app (" + app.origin + ") may be opened over http(s).");
    }
    return url.href;
  }
  if (url.protocol === "file:") {
    let path;
    try {
      path = fileURLToPath(url);
    } catch {
      throw new Refused("open_url: the file URL is not a local path.");
    }
    try {
      const { real } = readScopedFile(path, roots);
      return app.origin + app.share(real, roots) + url.hash;
    } catch (error) {
      if (error instanceof Refused) throw new Refused("open_url: " + error.message);
      throw error;
    }
  }
  throw new Refused("open_url: only http, https and file URLs are allowed.");
}
`;

/**
 * The demo page (`NAME.html`): a counter and a text field.
 *
 * @example
 * ```ts
 * import { BROWSER_PAGE } from "./browser_files_template.ts";
 * console.log(BROWSER_PAGE.includes("<title>Counter</title>")); // true
 * ```
 */
export const BROWSER_PAGE: string = String.raw`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Counter</title>
    <style>
    body {
      font: 20px sans-serif;
      margin: 40px;
      background: #fafafa;
    }
    #count {
      font-weight: bold;
    }
    button,
    input {
      font: inherit;
      padding: 4px 10px;
    }
    </style>
  </head>
  <body>
    <h1>Counter</h1>
    <p>Count: <span id="count">0</span></p>
    <button id="add" type="button">Add one</button>
    <p><label for="name">Name</label> <input id="name" type="text"></p>
    <p id="greeting"></p>
    <script>
    let count = 0;
    document.getElementById("add").addEventListener("click", () => {
      count += 1;
      document.getElementById("count").textContent = String(count);
      console.log("count is " + count);
    });
    document.getElementById("name").addEventListener("input", (e) => {
      document.getElementById("greeting").textContent = "Hello, " + e.target.value + "!";
    });
    console.info("counter page ready");
    </script>
  </body>
</html>
`;
