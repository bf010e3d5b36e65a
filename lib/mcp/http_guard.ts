/**
 * The guards in front of `toolhost serve --http`: where it may bind, which `Host` and
 * `Origin` headers it accepts (DNS-rebinding protection), and the optional bearer token.
 *
 * @module
 */

import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import { InvocationError } from "../errors/errors.ts";

/** A parsed `HOST:PORT`. */
export interface BindAddress {
  /** Host as given, without IPv6 brackets (`127.0.0.1`, `::1`, `localhost`, ...). */
  host: string;
  /** Port, 0 for any free port. */
  port: number;
}

/**
 * Parse `--http HOST:PORT` (`[::1]:PORT` for IPv6). Throws {@link InvocationError}.
 *
 * @example
 * ```ts
 * import { parseBind } from "./http_guard.ts";
 * parseBind("127.0.0.1:8080"); // { host: "127.0.0.1", port: 8080 }
 * parseBind("[::1]:0"); // { host: "::1", port: 0 }
 * ```
 */
export function parseBind(spec: string): BindAddress {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:\s\[\]]+)):(\d{1,5})$/.exec(spec);
  if (!m) {
    throw new InvocationError("--http takes HOST:PORT, e.g. 127.0.0.1:8765 or [::1]:8765");
  }
  const port = Number(m[3]);
  if (port > 65535) {
    throw new InvocationError(
      "--http: the port must be 0 to 65535 (0 picks a free one), e.g. 127.0.0.1:8765",
    );
  }
  const host = m[1] ?? m[2];
  if (m[1] !== undefined && isIP(host) !== 6) {
    throw new InvocationError("--http: the bracketed host must be an IPv6 address");
  }
  return { host, port };
}

/**
 * Refuse an `--allow-origin` value that no browser would send as `Origin`
 * (`scheme://host[:port]`, http or https, nothing after): such a value would be accepted
 * and never match, and the browser's requests would be refused without a word.
 *
 * @example
 * ```ts
 * import { checkAllowedOrigins } from "./http_guard.ts";
 * checkAllowedOrigins(["https://app.example.com", "http://localhost:3000"]); // passes
 * ```
 */
export function checkAllowedOrigins(origins: readonly string[]): void {
  for (const o of origins) {
    let origin: string | undefined;
    try {
      const u = new URL(o);
      if (u.protocol === "http:" || u.protocol === "https:") origin = u.origin;
    } catch { /* not a URL */ }
    if (origin !== o.toLowerCase()) {
      throw new InvocationError(
        `--allow-origin ${JSON.stringify(o)}: not an origin; give the scheme, host and port ` +
          "a browser sends in Origin, e.g. https://app.example.com or http://localhost:3000 " +
          "(no path, no trailing slash)",
      );
    }
  }
}

/**
 * What a failed `listen` on `--http` means, as an invocation error naming the address and
 * the fix (the port is taken, privileged, or the host is not this machine's); any other
 * error is returned unchanged.
 *
 * @example
 * ```ts
 * import { listenError } from "./http_guard.ts";
 * const busy = Object.assign(new Error("listen EADDRINUSE"), { code: "EADDRINUSE" });
 * (listenError(busy, { host: "127.0.0.1", port: 8765 }) as Error).message; // "--http 127.0.0.1:8765: the port is already in use ..."
 * ```
 */
export function listenError(e: unknown, bind: BindAddress): unknown {
  const code = (e as { code?: unknown } | null)?.code;
  const at = `--http ${bind.host.includes(":") ? `[${bind.host}]` : bind.host}:${bind.port}`;
  if (code === "EADDRINUSE") {
    return new InvocationError(
      `${at}: the port is already in use (another toolhost serve, or another server); stop ` +
        "it or choose another port (port 0 picks a free one)",
    );
  }
  if (code === "EACCES") {
    return new InvocationError(
      `${at}: not allowed to listen there (ports below 1024 need privileges); choose a port ` +
        "from 1024 up",
    );
  }
  if (code === "EADDRNOTAVAIL") {
    return new InvocationError(
      `${at}: the host is not an address of this machine; use 127.0.0.1, or one of its own ` +
        "addresses (with --allow-remote)",
    );
  }
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return new InvocationError(`${at}: the host name could not be resolved`);
  }
  return e;
}

/**
 * Is `host` a loopback name or address (`localhost`, `127.0.0.0/8`, `::1`)?
 *
 * @example
 * ```ts
 * import { isLoopbackHost } from "./http_guard.ts";
 * isLoopbackHost("127.0.0.1"); // true
 * isLoopbackHost("0.0.0.0"); // false
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  return mapped !== null && mapped[1].startsWith("127.");
}

/**
 * The shortest bearer token served without a warning: with a token, the token alone admits
 * a client (the same-user check is off) and every tool runs with the serving user's
 * authority, so a short one can be guessed (and one under 8 characters is not redacted).
 *
 * @example
 * ```ts
 * import { MIN_TOKEN_LENGTH } from "./http_guard.ts";
 * "0123456789abcdef".length >= MIN_TOKEN_LENGTH; // true
 * ```
 */
export const MIN_TOKEN_LENGTH = 16;

/**
 * The warning for a bearer token shorter than {@linkcode MIN_TOKEN_LENGTH} (`source` names
 * where it came from, e.g. `--token-env NAME`; never its value), or undefined.
 *
 * @example
 * ```ts
 * import { shortTokenWarning } from "./http_guard.ts";
 * shortTokenWarning(3, "--token-env T"); // "--token-env T: the bearer token is shorter than ..."
 * shortTokenWarning(32, "--token-env T"); // undefined
 * ```
 */
export function shortTokenWarning(length: number, source: string): string | undefined {
  if (length >= MIN_TOKEN_LENGTH) return undefined;
  return `${source}: the bearer token is shorter than ${MIN_TOKEN_LENGTH} characters, and ` +
    "whoever guesses it may run every tool with this user's authority; use a long random " +
    "one, e.g. the output of `openssl rand -hex 32`";
}

/**
 * Refuse a non-loopback bind unless `allowRemote`; a remote bind also needs a token.
 *
 * @example
 * ```ts
 * import { checkBind } from "./http_guard.ts";
 * checkBind({ host: "127.0.0.1", port: 0 }, { allowRemote: false, hasToken: false }); // ok
 * ```
 */
export function checkBind(
  bind: BindAddress,
  opts: { allowRemote: boolean; hasToken: boolean },
): void {
  if (opts.allowRemote && !opts.hasToken) {
    throw new InvocationError(
      "--allow-remote requires a bearer token: pass --token-env NAME naming an environment variable",
    );
  }
  if (isLoopbackHost(bind.host)) return;
  if (!opts.allowRemote) {
    throw new InvocationError(
      "--http binds a non-loopback address; pass --allow-remote (with --token-env) to serve beyond this machine",
    );
  }
}

/**
 * The `Origin` values a loopback server accepts by default for `port`.
 *
 * @example
 * ```ts
 * import { loopbackOrigins } from "./http_guard.ts";
 * loopbackOrigins(8080); // ["http://localhost:8080", "http://127.0.0.1:8080", "http://[::1]:8080"]
 * ```
 */
export function loopbackOrigins(port: number): string[] {
  return [`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`];
}

/** What the request guard needs. */
export interface GuardPolicy {
  /** Accepted `Origin` values (exact, lower-cased scheme/host). Requests without one pass. */
  origins: ReadonlySet<string>;
  /** When set, the `Host` header's host part must be loopback (loopback binds). */
  loopbackHostOnly: boolean;
  /** Required bearer token, when configured. */
  token?: string;
}

/** Why a request is refused: HTTP status and a value-free message. */
export interface Refusal {
  /** HTTP status. */
  status: 401 | 403;
  /** Message for the JSON-RPC error body. */
  message: string;
}

/**
 * Check one request's headers; undefined when it may pass.
 *
 * @example
 * ```ts
 * import { checkRequest } from "./http_guard.ts";
 * checkRequest({ origin: "https://evil.example" }, { origins: new Set(), loopbackHostOnly: false });
 * // { status: 403, message: "Origin not allowed" }
 * ```
 */
export function checkRequest(
  headers: Record<string, string | string[] | undefined>,
  policy: GuardPolicy,
): Refusal | undefined {
  const site = checkSite(headers, policy);
  if (site !== undefined) return site;
  if (policy.token !== undefined && !bearerMatches(first(headers.authorization), policy.token)) {
    return { status: 401, message: "Unauthorized: a valid bearer token is required" };
  }
  return undefined;
}

/**
 * The `Host` and `Origin` half of {@link checkRequest} (no token): what every endpoint,
 * the health probes included, is behind — a page a browser was DNS-rebound to (its
 * `Host` names the attacker's domain) or a foreign page (its `Origin`) gets nothing from
 * this port, not even whether toolhost listens there. A health checker sends neither, or
 * the address it dials.
 *
 * @example
 * ```ts
 * import { checkSite } from "./http_guard.ts";
 * checkSite({ host: "rebound.example:8765" }, { origins: new Set(), loopbackHostOnly: true });
 * // { status: 403, message: "Host not allowed" }
 * ```
 */
export function checkSite(
  headers: Record<string, string | string[] | undefined>,
  policy: GuardPolicy,
): Refusal | undefined {
  const host = first(headers.host);
  if (policy.loopbackHostOnly && host !== undefined && !isLoopbackHost(hostPart(host))) {
    return { status: 403, message: "Host not allowed" };
  }
  const origin = first(headers.origin);
  if (origin !== undefined && !policy.origins.has(origin.toLowerCase())) {
    return { status: 403, message: "Origin not allowed" };
  }
  return undefined;
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function hostPart(hostHeader: string): string {
  const v6 = /^\[([^\]]+)\](?::\d+)?$/.exec(hostHeader);
  if (v6) return v6[1];
  return hostHeader.replace(/:\d+$/, "");
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const m = header === undefined ? null : /^Bearer ([^\s]+)\s*$/i.exec(header);
  if (!m) return false;
  // Digests of equal length: a token of another length takes the same compare, so the
  // time taken tells nothing about the token's length either.
  return timingSafeEqual(digest(m[1]), digest(token));
}

function digest(text: string): Uint8Array {
  return createHash("sha256").update(text, "utf8").digest();
}
