/**
 * Reading an MCP client's configuration file: Claude Desktop / Cursor (`mcpServers`),
 * VS Code (`servers`, JSON with comments and trailing commas allowed) or Codex
 * (`config.toml`, `[mcp_servers.X]`). Bounded: at most 1 MiB and 256 servers. Errors
 * name the file and what was wrong, never a value from it.
 *
 * @module
 */

import { readFileSync, statSync } from "node:fs";
import { parse as parseToml } from "smol-toml";
import { InvocationError } from "../errors/errors.ts";
import { errnoOf } from "../paths/errno.ts";
import { showPath } from "../paths/show_path.ts";

/**
 * Largest configuration file read.
 *
 * @example
 * ```ts
 * import { MAX_CONFIG_BYTES } from "./read_config.ts";
 * MAX_CONFIG_BYTES; // 1048576
 * ```
 */
export const MAX_CONFIG_BYTES = 1024 * 1024;
/**
 * Most servers imported from one file.
 *
 * @example
 * ```ts
 * import { MAX_IMPORTED_SERVERS } from "./read_config.ts";
 * MAX_IMPORTED_SERVERS; // 256
 * ```
 */
export const MAX_IMPORTED_SERVERS = 256;

/** Which client's shape a file has. */
export type ConfigFormat = "mcpServers" | "servers" | "codex";

/** The servers of a client configuration, as written there. */
export interface ClientConfig {
  /** Its shape. */
  format: ConfigFormat;
  /** Server name → its table/object, in file order. */
  servers: [string, Record<string, unknown>][];
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * JSON with `//` and `/* *\/` comments and trailing commas (VS Code's `mcp.json`) made
 * plain JSON; strings are left untouched.
 *
 * @example
 * ```ts
 * import { stripJsonc } from "./read_config.ts";
 * JSON.parse(stripJsonc('{"a": 1, // one\n}')); // { a: 1 }
 * ```
 */
export function stripJsonc(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else out += c;
  }
  return out.replace(/,(\s*[}\]])/g, "$1");
}

/**
 * Parse a configuration's text (`name` is only for messages; a `.toml` name is read as
 * Codex's config, anything else as JSON).
 *
 * @example
 * ```ts
 * import { parseClientConfig } from "./read_config.ts";
 * parseClientConfig('{"mcpServers": {"fs": {"command": "npx"}}}', "claude.json").servers.length; // 1
 * ```
 */
export function parseClientConfig(text: string, name: string): ClientConfig {
  const shown = showPath(name);
  const bad = (why: string) => new InvocationError(`${shown}: ${why}`);
  let data: unknown;
  const toml = name.toLowerCase().endsWith(".toml");
  try {
    data = toml ? parseToml(text) : JSON.parse(stripJsonc(text));
  } catch {
    throw bad(`is not valid ${toml ? "TOML" : "JSON"}`);
  }
  if (!isObj(data)) throw bad("is not a JSON object");
  let format: ConfigFormat;
  let table: unknown;
  if (toml && data.mcp_servers !== undefined) [format, table] = ["codex", data.mcp_servers];
  else if (toml) throw bad("has no [mcp_servers.NAME] table");
  else if (data.mcpServers !== undefined) [format, table] = ["mcpServers", data.mcpServers];
  else if (data.servers !== undefined) [format, table] = ["servers", data.servers];
  else if (isObj(data.mcp) && data.mcp.servers !== undefined) {
    [format, table] = ["servers", data.mcp.servers]; // VS Code settings.json
  } else {
    throw bad('has no "mcpServers" (Claude Desktop, Cursor) or "servers" (VS Code) object');
  }
  if (!isObj(table)) throw bad(`its ${toml ? "mcp_servers" : format} must be a table of servers`);
  const servers = Object.entries(table).filter((e): e is [string, Record<string, unknown>] =>
    isObj(e[1])
  );
  if (servers.length > MAX_IMPORTED_SERVERS) {
    throw bad(`holds more than ${MAX_IMPORTED_SERVERS} servers`);
  }
  return { format, servers };
}

/**
 * Read and parse a configuration file (at most {@link MAX_CONFIG_BYTES}).
 *
 * @example
 * ```ts
 * import { readClientConfig } from "./read_config.ts";
 * // readClientConfig("~/.cursor/mcp.json".replace("~", home)).servers
 * ```
 */
export function readClientConfig(path: string): ClientConfig {
  const shown = showPath(path);
  let text: string;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new InvocationError(`${shown} is not a file`);
    if (st.size > MAX_CONFIG_BYTES) {
      throw new InvocationError(`${shown} is larger than 1 MiB; this is not an MCP client config`);
    }
    text = readFileSync(path, "utf8");
  } catch (e) {
    if (e instanceof InvocationError) throw e;
    throw new InvocationError(`cannot read ${shown} (${errnoOf(e) ?? "error"})`);
  }
  if (text.length > MAX_CONFIG_BYTES) {
    throw new InvocationError(`${shown} is larger than 1 MiB; this is not an MCP client config`);
  }
  return parseClientConfig(text, path);
}
