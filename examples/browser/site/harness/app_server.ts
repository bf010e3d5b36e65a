/**
 * The example's local web app on an OS-chosen loopback port, so the browser demo needs
 * no network: `/` is site/index.html, and `/files/TOKEN/...` serves a folder of the scope
 * shared by `open_url` for a `file:` URL — every file read by {@linkcode readScopedFile}
 * at request time, so Chromium never opens a `file:` path itself.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { basename, dirname, extname, join } from "node:path";
import { FileRefused, readScopedFile } from "./scoped_file.ts";

/** A running app. */
export interface App {
  /** The server. */
  server: Server;
  /** Its origin, `http://127.0.0.1:PORT`. */
  origin: string;
  /** Share the folder of the scope file at `real` (a real path); the file's URL path. */
  share(real: string, roots: string[]): string;
}

const PAGE = new URL("../index.html", import.meta.url);
/** Folders shared at once (the oldest is forgotten first). */
const MAX_SHARED = 100;
const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

interface Shared {
  dir: string;
  roots: string[];
  key: string;
}

/**
 * Serve the counter page at `/` and shared scope folders under `/files/` on 127.0.0.1.
 *
 * @example
 * ```ts ignore
 * const app = await serveApp();
 * console.log(app.origin);
 * app.server.close();
 * ```
 */
export function serveApp(): Promise<App> {
  const html = readFileSync(PAGE);
  const shared = new Map<string, Shared>();
  const server = createServer((req, res) => {
    const reply = (status: number, type: string, body: Uint8Array | string) => {
      res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : body);
    };
    if (req.method !== "GET" && req.method !== "HEAD") {
      return reply(405, "text/plain", "method not allowed\n");
    }
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/" || path === "/index.html") return reply(200, TYPES[".html"], html);
    const m = /^\/files\/([0-9a-f]{32})\/(.+)$/.exec(path);
    const entry = m ? shared.get(m[1]) : undefined;
    if (m === null || entry === undefined) return reply(404, "text/plain", "not found\n");
    let rel: string;
    try {
      rel = decodeURIComponent(m[2]);
    } catch {
      return reply(400, "text/plain", "bad path\n");
    }
    try {
      const { bytes, real } = readScopedFile(join(entry.dir, rel), entry.roots);
      reply(200, TYPES[extname(real).toLowerCase()] ?? "application/octet-stream", bytes);
    } catch (e) {
      if (!(e instanceof FileRefused)) throw e;
      reply(403, "text/plain", `refused: ${e.message}\n`);
    }
  });
  function share(real: string, roots: string[]): string {
    const dir = dirname(real);
    const key = JSON.stringify([dir, roots]);
    let token = [...shared].find(([, e]) => e.key === key)?.[0];
    if (token === undefined) {
      token = randomBytes(16).toString("hex");
      shared.set(token, { dir, roots, key });
      if (shared.size > MAX_SHARED) shared.delete(shared.keys().next().value!);
    }
    return `/files/${token}/${encodeURIComponent(basename(real))}`;
  }
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, origin: `http://127.0.0.1:${port}`, share });
    });
  });
}
