/**
 * The operator endpoints of `serve --http`, for load balancers and orchestrators:
 * `GET /healthz` (the process is alive) and `GET /readyz` (it accepts new MCP sessions;
 * 503 while draining). Neither is behind the bearer token: a health checker has none, and
 * the bodies are tiny fixed strings that say nothing about the workspace, the eval or the
 * sessions. Both are behind the Host/Origin checks (`checkSite`, http_guard.ts), like every
 * endpoint: a page a browser was DNS-rebound to learns nothing here, not even that toolhost
 * listens. A health checker sends no `Origin`, and either no `Host` (HAProxy's `option
 * httpchk` is HTTP/1.0) or the address it dials (loopback on a loopback bind).
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from "node:http";

/** Liveness path. */
export const HEALTHZ_PATH = "/healthz";
/** Readiness path. */
export const READYZ_PATH = "/readyz";

/**
 * Answer `/healthz` or `/readyz` when `path` is one of them; false otherwise.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { answerProbe } from "./http_ops.ts";
 * const server = createServer((req, res) => {
 *   if (answerProbe(req, res, "/healthz", () => true)) return;
 *   res.writeHead(404).end();
 * });
 * server.close();
 * ```
 */
export function answerProbe(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  ready: () => boolean,
): boolean {
  if (path !== HEALTHZ_PATH && path !== READYZ_PATH) return false;
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "text/plain" });
    res.end("method not allowed\n");
    return true;
  }
  const ok = path === HEALTHZ_PATH || ready();
  const body = path === HEALTHZ_PATH ? "ok\n" : ok ? "ready\n" : "draining\n";
  res.writeHead(ok ? 200 : 503, {
    "Content-Type": "text/plain; charset=utf-8",
    "Cache-Control": "no-store",
    "Content-Length": String(body.length),
  });
  res.end(req.method === "HEAD" ? undefined : body);
  return true;
}
