/**
 * What `serve` answers to a client's first requests — `initialize` and `tools/list` —
 * computed without the MCP SDK, so that stdio can answer them before the SDK (about a
 * fifth of `serve`'s start-up: its zod schemas are built when it loads) is loaded
 * (stdio_front.ts). The SDK `Server` builds the same answers from the same pieces
 * (server.ts uses {@linkcode serverCapabilities} and {@linkcode listToolsResult});
 * tests/mcp/early_answers_test.ts compares the bytes of both on a corpus of requests.
 *
 * Only requests of a plain shape that the SDK's schemas provably accept are answered
 * early ({@linkcode earlyMessage}); anything else waits for the SDK, which then answers
 * (or refuses) it as always.
 *
 * @module
 */

import type { ToolListing } from "../registry/registry.ts";
import { VERSION } from "../version.ts";
import { plainRequestOf } from "./plain_shape.ts";
import type { ToolSource } from "./tool_source.ts";

/** The SDK's `LATEST_PROTOCOL_VERSION` (1.32.2; equality is tested). */
export const LATEST_PROTOCOL_VERSION = "2025-11-25";
/** The SDK's `SUPPORTED_PROTOCOL_VERSIONS` (1.32.2; equality is tested). */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  LATEST_PROTOCOL_VERSION,
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
];

/** The server's name and version, as `initialize` reports them. */
export const SERVER_INFO: { name: string; version: string } = {
  name: "toolhost",
  version: VERSION,
};

/**
 * The version the server answers `initialize` with: the requested one when supported,
 * else the latest (the SDK `Server`'s rule).
 *
 * @example
 * ```ts
 * import { negotiatedVersion } from "./early_answers.ts";
 * negotiatedVersion("2025-06-18"); // "2025-06-18"
 * negotiatedVersion("1999-01-01"); // "2025-11-25"
 * ```
 */
export function negotiatedVersion(requested: unknown): string {
  return typeof requested === "string" && SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION;
}

/**
 * The server capabilities for `source`: tools (with `listChanged` when its tools can
 * change), and resources when it has artifacts.
 *
 * @example
 * ```ts
 * import { serverCapabilities } from "./early_answers.ts";
 * const none = () => Promise.resolve();
 * serverCapabilities({ list: () => Promise.resolve([]), call: () => Promise.reject(), close: none });
 * // { tools: { listChanged: false } }
 * ```
 */
export function serverCapabilities(source: ToolSource): Record<string, Record<string, boolean>> {
  return {
    tools: { listChanged: source.onToolsChanged !== undefined },
    ...(source.artifacts ? { resources: { listChanged: true } } : {}),
  };
}

/**
 * The `tools/list` result for a listing: name, description and input schema of each.
 *
 * @example
 * ```ts
 * import { listToolsResult } from "./early_answers.ts";
 * listToolsResult([]); // { tools: [] }
 * ```
 */
export function listToolsResult(
  tools: ToolListing[],
): { tools: { name: string; description?: string; inputSchema: { type: "object" } }[] } {
  return {
    tools: tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema as { type: "object"; [k: string]: unknown },
    })),
  };
}

/**
 * The `initialize` result the SDK `Server` sends (same keys in the same order).
 *
 * @example
 * ```ts
 * import { initializeResult } from "./early_answers.ts";
 * initializeResult("2025-06-18", { tools: { listChanged: false } }, "Tools.");
 * ```
 */
export function initializeResult(
  requested: unknown,
  capabilities: Record<string, unknown>,
  instructions: string | undefined,
): Record<string, unknown> {
  return {
    protocolVersion: negotiatedVersion(requested),
    capabilities,
    serverInfo: SERVER_INFO,
    ...(instructions && { instructions }),
  };
}

/** A message {@linkcode earlyMessage} recognised. */
export type EarlyMessage =
  | { kind: "initialize"; id: string | number; protocolVersion: string }
  | { kind: "list"; id: string | number }
  | { kind: "initialized" };

/**
 * The line as a message that can be answered (or, for `notifications/initialized`,
 * taken) before the SDK is loaded; undefined for anything else. Recognised:
 * - a plain `initialize` request (plain_shape.ts) whose params are exactly
 *   `protocolVersion` (a string), `capabilities` (only `roots`, `sampling`, `elicitation`
 *   and `experimental`, of the shapes the SDK's schema accepts) and `clientInfo` (`name`
 *   and `version` strings, optionally `title`, `websiteUrl` and `description` strings);
 * - a plain `tools/list` request without params, with `{}` or with only a string `cursor`;
 * - `notifications/initialized` without params or with `{}`.
 *
 * @example
 * ```ts
 * import { earlyMessage } from "./early_answers.ts";
 * earlyMessage('{"jsonrpc":"2.0","id":2,"method":"tools/list"}'); // { kind: "list", id: 2 }
 * earlyMessage('{"jsonrpc":"2.0","id":3,"method":"ping"}'); // undefined
 * ```
 */
export function earlyMessage(line: string): EarlyMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (isInitializedNotification(value)) return { kind: "initialized" };
  const req = plainRequestOf(value);
  if (req === undefined) return undefined;
  const id = req.id as string | number;
  const params = req.params as Record<string, unknown> | undefined;
  if (req.method === "tools/list") {
    const keys = params === undefined ? [] : Object.keys(params);
    const plain = keys.length === 0 ||
      (keys.length === 1 && keys[0] === "cursor" && typeof params!.cursor === "string");
    return plain ? { kind: "list", id } : undefined;
  }
  if (req.method !== "initialize" || params === undefined) return undefined;
  if (!onlyKeys(params, ["protocolVersion", "capabilities", "clientInfo"], 3)) return undefined;
  if (typeof params.protocolVersion !== "string") return undefined;
  if (!plainCapabilities(params.capabilities) || !plainClientInfo(params.clientInfo)) {
    return undefined;
  }
  return { kind: "initialize", id, protocolVersion: params.protocolVersion };
}

function isInitializedNotification(v: unknown): boolean {
  if (!isPlain(v) || !onlyKeys(v, ["jsonrpc", "method", "params"])) return false;
  if (v.jsonrpc !== "2.0" || v.method !== "notifications/initialized") return false;
  return !Object.hasOwn(v, "params") || (isPlain(v.params) && Object.keys(v.params).length === 0);
}

function plainClientInfo(v: unknown): boolean {
  if (!isPlain(v) || !onlyKeys(v, ["name", "version", "title", "websiteUrl", "description"])) {
    return false;
  }
  return Object.values(v).every((x) => typeof x === "string") &&
    typeof v.name === "string" && typeof v.version === "string";
}

/** Capabilities of the shapes ClientCapabilitiesSchema (SDK 1.32.2) accepts. */
function plainCapabilities(v: unknown): boolean {
  if (!isPlain(v) || !onlyKeys(v, ["roots", "sampling", "elicitation", "experimental"])) {
    return false;
  }
  const { roots, sampling, elicitation, experimental } = v;
  if (roots !== undefined) {
    if (!isPlain(roots) || !onlyKeys(roots, ["listChanged"])) return false;
    if (Object.hasOwn(roots, "listChanged") && typeof roots.listChanged !== "boolean") {
      return false;
    }
  }
  if (sampling !== undefined && !recordOfPlain(sampling, ["context", "tools"])) return false;
  if (experimental !== undefined && !recordOfPlain(experimental)) return false;
  if (elicitation !== undefined) {
    if (!recordOfPlain(elicitation, ["form", "url"])) return false;
    const form = elicitation.form;
    if (form !== undefined && (!isPlain(form) || !onlyKeys(form, []))) return false;
  }
  return true;
}

/** A plain object whose values are all plain objects (and keys among `allowed`). */
function recordOfPlain(v: unknown, allowed?: string[]): v is Record<string, unknown> {
  if (!isPlain(v) || (allowed !== undefined && !onlyKeys(v, allowed))) return false;
  return Object.values(v).every(isPlain);
}

/** Own keys all enumerable strings among `allowed` (and exactly `count` of them if given). */
function onlyKeys(v: Record<string, unknown>, allowed: string[], count?: number): boolean {
  const keys = Reflect.ownKeys(v);
  if (count !== undefined && keys.length !== count) return false;
  return keys.every((k) =>
    typeof k === "string" && allowed.includes(k) &&
    Object.prototype.propertyIsEnumerable.call(v, k)
  );
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) &&
    Object.getPrototypeOf(v) === Object.prototype;
}
