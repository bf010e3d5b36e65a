/**
 * The keys of a remote `[extensions.NAME]` (an MCP server reached over Streamable HTTP,
 * or legacy HTTP+SSE) and the tool filters every extension takes. Key names follow
 * Codex's `[mcp_servers.X]`, so such a table moves over unchanged:
 *
 * ```toml
 * [extensions.tracker]
 * url = "https://mcp.example.com/mcp"     # https://, or http:// to a loopback address only
 * bearer_token_env_var = "TRACKER_TOKEN"  # Authorization: Bearer $TRACKER_TOKEN
 * env_http_headers = { "X-Api-Key" = "TRACKER_KEY" }  # header = environment variable
 * http_headers = { "X-Team" = "core" }    # literal, non-secret values
 * enabled_tools = ["list_*", "get_issue"] # only these of the server's tools (names or globs)
 * disabled_tools = ["delete_*"]           # never these
 * ```
 *
 * Secrets are never written in the manifest: header values that are secrets come from the
 * environment, named by the variable, at connect time.
 *
 * @module
 */

import { LIMITS } from "../results/types.ts";
import { isEnvName } from "../process/env.ts";
import { typeName } from "./fields.ts";
import { isTable, type Problems, type Table } from "./problems.ts";

/** How a remote extension is reached. */
export interface RemoteDecl {
  /** `https://…`, or `http://` to a loopback host. */
  url: string;
  /** Environment variable holding the bearer token, if any. */
  bearerTokenEnvVar?: string;
  /** Header name → environment variable holding its value. */
  envHttpHeaders: Record<string, string>;
  /** Header name → literal (non-secret) value. */
  httpHeaders: Record<string, string>;
}

/**
 * Keys only a remote extension takes.
 *
 * @example
 * ```ts
 * import { REMOTE_KEYS } from "./parse_remote.ts";
 * REMOTE_KEYS.length > 0; // true
 * ```
 */
export const REMOTE_KEYS = [
  "url",
  "bearer_token_env_var",
  "env_http_headers",
  "http_headers",
];

/**
 * The timeout keys: toolhost's and Codex's (seconds), accepted as written there.
 *
 * @example
 * ```ts
 * import { TIMEOUT_KEYS } from "./parse_remote.ts";
 * TIMEOUT_KEYS.length > 0; // true
 * ```
 */
export const TIMEOUT_KEYS = ["connect_timeout_ms", "startup_timeout_sec", "tool_timeout_sec"];

/**
 * The tool filter keys.
 *
 * @example
 * ```ts
 * import { FILTER_KEYS } from "./parse_remote.ts";
 * FILTER_KEYS.length > 0; // true
 * ```
 */
export const FILTER_KEYS = ["enabled_tools", "disabled_tools"];

/** Most entries of one filter list. */
const MAX_FILTERS = 256;
/** A tool name or glob (`*`, `?`) of the server's own tool names. */
const FILTER = /^[A-Za-z0-9_.\-*?]{1,128}$/;
/** An HTTP header field name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
/** Headers toolhost sets itself, or that would carry a secret in the manifest. */
const RESERVED_HEADERS = new Set([
  "authorization",
  "content-type",
  "content-length",
  "accept",
  "host",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
]);

/**
 * True for a loopback host as a URL spells it: `localhost`, 127.0.0.0/8 or `[::1]`.
 *
 * @example
 * ```ts
 * import { isLoopbackHost } from "./parse_remote.ts";
 * isLoopbackHost("127.0.0.1"); // true
 * isLoopbackHost("example.com"); // false
 * ```
 */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (h === "localhost" || h === "[::1]" || h === "::1") return true;
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return m !== null && m.slice(1).every((o) => Number(o) <= 255);
}

/**
 * Read and check `url` and the other remote keys of `t` (at key path `at`).
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { readRemote } from "./parse_remote.ts";
 * readRemote(new Problems("t", ""), "extensions.x", { url: "https://h/mcp" })?.url;
 * // "https://h/mcp"
 * ```
 */
export function readRemote(p: Problems, at: string, t: Table): RemoteDecl | undefined {
  const url = readUrl(p, at, t.url);
  const bearer = t.bearer_token_env_var;
  if (bearer !== undefined && (typeof bearer !== "string" || !isEnvName(bearer))) {
    p.add(
      `${at}.bearer_token_env_var`,
      "must name an environment variable ([A-Za-z_][A-Za-z0-9_]*)",
    );
  }
  const envHttpHeaders = readHeaders(p, `${at}.env_http_headers`, t.env_http_headers, true);
  const httpHeaders = readHeaders(p, `${at}.http_headers`, t.http_headers, false);
  if (url === undefined) return undefined;
  return {
    url,
    ...(typeof bearer === "string" ? { bearerTokenEnvVar: bearer } : {}),
    envHttpHeaders,
    httpHeaders,
  };
}

function readUrl(p: Problems, at: string, v: unknown): string | undefined {
  const k = `${at}.url`;
  if (typeof v !== "string") {
    p.add(k, `must be a string, not ${typeName(v)}`);
    return undefined;
  }
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    p.add(k, "is not a valid URL");
    return undefined;
  }
  if (u.username !== "" || u.password !== "") {
    p.add(k, "must not carry credentials; use bearer_token_env_var or env_http_headers");
    return undefined;
  }
  if (u.protocol === "https:") return v;
  if (u.protocol === "http:") {
    if (isLoopbackHost(u.hostname)) return v;
    p.add(
      k,
      "http:// is refused except to a loopback address (localhost, 127.0.0.0/8, ::1); use https://",
    );
    return undefined;
  }
  p.add(k, "must be an https:// URL (or http:// to a loopback address)");
  return undefined;
}

function readHeaders(
  p: Problems,
  at: string,
  v: unknown,
  fromEnv: boolean,
): Record<string, string> {
  if (v === undefined) return {};
  if (!isTable(v)) {
    p.add(at, `must be a table of strings, not ${typeName(v)}`);
    return {};
  }
  const out: Record<string, string> = {};
  for (const [name, x] of Object.entries(v)) {
    const k = `${at}.${name}`;
    if (!HEADER_NAME.test(name)) p.add(k, "is not a valid HTTP header name");
    else if (!fromEnv && RESERVED_HEADERS.has(name.toLowerCase())) {
      p.add(
        k,
        "is set by toolhost or would put a secret in the manifest; use bearer_token_env_var or env_http_headers",
      );
    } else if (
      fromEnv && name.toLowerCase() !== "authorization" && RESERVED_HEADERS.has(name.toLowerCase())
    ) {
      p.add(k, "is set by toolhost");
    } else if (typeof x !== "string") p.add(k, `must be a string, not ${typeName(x)}`);
    else if (fromEnv && !isEnvName(x)) {
      p.add(k, "must name an environment variable ([A-Za-z_][A-Za-z0-9_]*), not hold the value");
    } else if (!fromEnv && (/[\r\n\0]/.test(x) || x.length > 8192)) {
      p.add(k, "must be at most 8192 characters without line breaks");
    } else out[name] = x;
  }
  return out;
}

/**
 * Timeouts: per request (`timeout_ms` or Codex's `tool_timeout_sec`, default `fallback`)
 * and of connecting and initializing (`connect_timeout_ms` or `startup_timeout_sec`,
 * default: the request timeout).
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { readTimeouts } from "./parse_remote.ts";
 * readTimeouts(new Problems("t", ""), "x", { tool_timeout_sec: 5 }, 120000);
 * // { timeoutMs: 5000, connectTimeoutMs: 5000 }
 * ```
 */
export function readTimeouts(
  p: Problems,
  at: string,
  t: Table,
  fallback: number,
): { timeoutMs: number; connectTimeoutMs: number } {
  const both = (a: string, b: string) => {
    if (t[a] !== undefined && t[b] !== undefined) {
      p.add(`${at}.${b}`, `cannot be given together with \`${a}\``);
    }
  };
  both("timeout_ms", "tool_timeout_sec");
  both("connect_timeout_ms", "startup_timeout_sec");
  const timeoutMs = readMs(p, `${at}.timeout_ms`, t.timeout_ms) ??
    readSeconds(p, `${at}.tool_timeout_sec`, t.tool_timeout_sec) ?? fallback;
  const connectTimeoutMs = readMs(p, `${at}.connect_timeout_ms`, t.connect_timeout_ms) ??
    readSeconds(p, `${at}.startup_timeout_sec`, t.startup_timeout_sec) ?? timeoutMs;
  return { timeoutMs, connectTimeoutMs };
}

function readMs(p: Problems, at: string, v: unknown): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > LIMITS.maxTimeoutMs) {
    p.add(at, `must be an integer from 1 to ${LIMITS.maxTimeoutMs}`);
    return undefined;
  }
  return v;
}

/**
 * A Codex-style timeout in seconds (`startup_timeout_sec`, `tool_timeout_sec`), as ms.
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { readSeconds } from "./parse_remote.ts";
 * readSeconds(new Problems("t", ""), "x.tool_timeout_sec", 2.5); // 2500
 * ```
 */
export function readSeconds(p: Problems, at: string, v: unknown): number | undefined {
  if (v === undefined) return undefined;
  const ms = typeof v === "number" ? Math.round(v * 1000) : NaN;
  if (!Number.isFinite(ms) || ms < 1 || ms > LIMITS.maxTimeoutMs) {
    p.add(
      at,
      `must be a number of seconds from 0.001 to ${Math.floor(LIMITS.maxTimeoutMs / 1000)}`,
    );
    return undefined;
  }
  return ms;
}

/**
 * Read `enabled_tools` / `disabled_tools`: names or globs (`*`, `?`) of the server's own
 * tool names.
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * import { readFilter } from "./parse_remote.ts";
 * readFilter(new Problems("t", ""), "extensions.x", { enabled_tools: ["get_*"] }, "enabled_tools");
 * // ["get_*"]
 * ```
 */
export function readFilter(
  p: Problems,
  at: string,
  t: Table,
  key: "enabled_tools" | "disabled_tools",
): string[] | undefined {
  const v = t[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length > MAX_FILTERS) {
    p.add(`${at}.${key}`, `must be an array of at most ${MAX_FILTERS} tool names or globs`);
    return undefined;
  }
  const out: string[] = [];
  v.forEach((x, i) => {
    if (typeof x !== "string" || !FILTER.test(x)) {
      p.add(`${at}.${key}[${i}]`, "must be a tool name or a glob of [A-Za-z0-9_.-], `*` and `?`");
    } else out.push(x);
  });
  return out;
}
