/**
 * The example's local web app: serves `site/index.html` on an OS-chosen loopback port,
 * so the browser demo needs no network.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A running app. */
export interface App {
  /** The server. */
  server: Server;
  /** Its origin, `http://127.0.0.1:PORT`. */
  origin: string;
}

const PAGE = new URL("../index.html", import.meta.url);

/**
 * Serve the counter page at `/` (everything else is 404) on 127.0.0.1.
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
  const server = createServer((req, res) => {
    if (req.method === "GET" && (req.url === "/" || req.url === "/index.html")) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(html);
      return;
    }
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("not found\n");
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, origin: `http://127.0.0.1:${port}` });
    });
  });
}
