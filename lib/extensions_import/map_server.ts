/**
 * One MCP client server entry → one `[extensions.NAME]` table, plus what could not be
 * carried over. Secrets are never written: a literal value in `env` or in a header that
 * looks like a secret (by its name or its shape) is left out and becomes an
 * environment-variable reference (`bearer_token_env_var`, `env_http_headers`) with a
 * note naming the variable to set. References already written as `${env:X}`, `${X}` or
 * `$X` become that variable.
 *
 * @module
 */

import { isEnvName } from "../process/env.ts";
import { isLoopbackHost } from "../workspace/parse_remote.ts";

/** The mapped table and notes (value-free). */
export interface MappedServer {
  /** The extension name it gets. */
  name: string;
  /** The `[extensions.NAME]` keys, or undefined when the server cannot be imported. */
  table?: Record<string, unknown>;
  /** What was not carried over, and environment variables to set. */
  notes: string[];
  /** Environment variables the user must set for it to work. */
  setEnv: string[];
}

const SECRET_NAME =
  /token|secret|passw|pwd|api[_-]?key|apikey|auth|credential|cookie|session|private|signature|\bpat\b|_pat$|^pat_|access[_-]?key/i;
const REFERENCE = /^\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}$|^\$([A-Za-z_][A-Za-z0-9_]*)$/;
/** Codex keys taken as they are. */
const CODEX_SAME = [
  "command",
  "args",
  "url",
  "bearer_token_env_var",
  "env_http_headers",
  "enabled_tools",
  "disabled_tools",
  "startup_timeout_sec",
  "tool_timeout_sec",
];

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * A toolhost extension name for a client's server name (lowercase, `[a-z0-9_-]`).
 *
 * @example
 * ```ts
 * import { extensionName } from "./map_server.ts";
 * extensionName("GitHub Copilot"); // "github-copilot"
 * ```
 */
export function extensionName(name: string): string {
  const n = name.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^[^a-z0-9]+/, "")
    .replace(/-+$/, "").slice(0, 64);
  return n === "" ? "server" : n;
}

/**
 * Whether a literal value looks like a secret: long and random-looking, or a known token
 * shape.
 *
 * @example
 * ```ts
 * import { looksSecret } from "./map_server.ts";
 * looksSecret("ghp_0123456789abcdefghijABCDEFGHIJ0123"); // true
 * looksSecret("warn"); // false
 * ```
 */
export function looksSecret(value: string): boolean {
  if (/^(gh[pousr]_|github_pat_|sk-|xox[abprs]-|glpat-|AKIA|eyJ)/.test(value)) return true;
  const v = value.replace(/^Bearer\s+/i, "");
  return v.length >= 20 && /[0-9]/.test(v) && /[A-Za-z]/.test(v) && !/[\s/]/.test(v);
}

function referenceOf(value: string): string | undefined {
  const m = REFERENCE.exec(value.trim());
  return m ? (m[1] ?? m[2]) : undefined;
}

function envVarFor(ext: string, what: string): string {
  return `${ext}_${what}`.toUpperCase().replace(/[^A-Z0-9_]/g, "_");
}

/**
 * Map one server entry (as a client's config holds it) to an extension table.
 *
 * @example
 * ```ts
 * import { mapServer } from "./map_server.ts";
 * mapServer("fs", { command: "npx", args: ["-y", "srv"] }, "mcpServers").table;
 * // { command: "npx", args: ["-y", "srv"] }
 * ```
 */
export function mapServer(
  rawName: string,
  entry: Record<string, unknown>,
  format: "mcpServers" | "servers" | "codex",
): MappedServer {
  const name = extensionName(rawName);
  const out: MappedServer = { name, notes: [], setEnv: [] };
  const table: Record<string, unknown> = {};
  const note = (s: string) => out.notes.push(s);
  const known = new Set<string>();
  const take = (key: string, to = key) => {
    known.add(key);
    if (entry[key] !== undefined) table[to] = entry[key];
  };
  if (format === "codex") {
    for (const k of CODEX_SAME) take(k);
    headers(entry.http_headers, name, table, out); // literal secrets there too
    known.add("http_headers");
    known.add("env_vars"); // toolhost passes the whole environment
    if (entry.enabled === false) note("it is disabled there (`enabled = false`); imported anyway");
    known.add("enabled");
    if (typeof entry.bearer_token === "string") {
      const v = envVarFor(name, "TOKEN");
      table.bearer_token_env_var ??= v;
      out.setEnv.push(v);
      note(`its literal bearer_token was not written: set ${v} instead`);
    }
    known.add("bearer_token");
  } else {
    take("command");
    take("args");
    take("url");
    if (typeof entry.serverUrl === "string" && table.url === undefined) take("serverUrl", "url");
    known.add("type");
    if (entry.disabled === true) note('it is disabled there ("disabled": true); imported anyway');
    known.add("disabled");
    headers(entry.headers, name, table, out);
    known.add("headers");
  }
  env(entry.env, name, table, out);
  known.add("env");
  for (const k of Object.keys(entry).filter((k) => !known.has(k))) {
    note(`\`${k}\` has no toolhost equivalent and was left out`);
  }
  return check(table, out);
}

function check(table: Record<string, unknown>, out: MappedServer): MappedServer {
  if (typeof table.url === "string") {
    let u: URL | undefined;
    try {
      u = new URL(table.url);
    } catch { /* below */ }
    if (
      !u || !(u.protocol === "https:" || (u.protocol === "http:" && isLoopbackHost(u.hostname)))
    ) {
      out.notes.push("its url is not https:// (or http:// to loopback); not imported");
      return out;
    }
    if (u.username !== "" || u.password !== "") {
      out.notes.push("its url carries credentials; not imported (use bearer_token_env_var)");
      return out;
    }
    delete table.command;
    delete table.args;
    delete table.env;
  } else if (typeof table.command !== "string" || table.command === "") {
    out.notes.push("it has neither a command nor a url; not imported");
    return out;
  }
  out.table = table;
  return out;
}

function env(
  v: unknown,
  ext: string,
  table: Record<string, unknown>,
  out: MappedServer,
): void {
  if (!isObj(v)) return;
  const kept: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== "string" || !isEnvName(k)) {
      out.notes.push(`env \`${k.slice(0, 64)}\` is not a plain string variable; left out`);
      continue;
    }
    const ref = referenceOf(x);
    if (ref !== undefined) {
      if (ref !== k) {
        out.notes.push(
          `env ${k} refers to ${ref}: set ${k} yourself (toolhost passes your environment)`,
        );
        out.setEnv.push(k);
      } // the same name: passed through from the environment anyway
      continue;
    }
    if (SECRET_NAME.test(k) || looksSecret(x) || /\$\{/.test(x)) {
      out.notes.push(
        `env ${k} looks like a secret and was not written: set ${k} in the environment`,
      );
      out.setEnv.push(k);
      continue;
    }
    kept[k] = x;
  }
  if (Object.keys(kept).length > 0) table.env = kept;
  void ext;
}

function headers(
  v: unknown,
  ext: string,
  table: Record<string, unknown>,
  out: MappedServer,
): void {
  if (!isObj(v)) return;
  const plain: Record<string, string> = {};
  const fromEnv: Record<string, string> = {};
  for (const [h, x] of Object.entries(v)) {
    if (typeof x !== "string") continue;
    if (h.toLowerCase() === "authorization") {
      const token = x.replace(/^Bearer\s+/i, "");
      const ref = referenceOf(token);
      const variable = ref ?? envVarFor(ext, "TOKEN");
      if (/^Bearer\s/i.test(x)) table.bearer_token_env_var = variable;
      else fromEnv[h] = variable;
      out.setEnv.push(variable);
      if (ref === undefined) {
        out.notes.push(`its Authorization header was not written: set ${variable} to the token`);
      }
      continue;
    }
    const ref = referenceOf(x);
    if (ref !== undefined) fromEnv[h] = ref;
    else if (SECRET_NAME.test(h) || looksSecret(x) || /\$\{/.test(x)) {
      const variable = envVarFor(ext, h);
      fromEnv[h] = variable;
      out.setEnv.push(variable);
      out.notes.push(`header ${h} looks like a secret and was not written: set ${variable}`);
    } else plain[h] = x;
  }
  if (Object.keys(plain).length > 0) table.http_headers = plain;
  if (Object.keys(fromEnv).length > 0) {
    const had = isObj(table.env_http_headers) ? table.env_http_headers : {};
    table.env_http_headers = { ...had, ...fromEnv };
  }
}
