/**
 * Publishing one tool an extension server listed: its name becomes `<tool>_<NAME>` (a
 * valid MCP tool name of at most 128 characters, or it is skipped), a listing holding a
 * protected value is skipped (listing_guard.ts), its input schema must compile, its
 * description is cleaned like a declared one; a tool the lock blocks is listed neutrally.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Drift } from "../lock/compare.ts";
import { BLOCKED_DESCRIPTION } from "../lock/registry_lock.ts";
import { cleanText, cutUnits } from "../text/text_clean.ts";
import type { Protector } from "../redact/types.ts";
import type { ToolListing } from "../results/tool_listing.ts";
import { LIMITS } from "../results/types.ts";
import { type CompiledSchema, compileSchema } from "../schema/compile_schema.ts";
import { type ExtensionServer, toolFingerprint } from "./extension_server.ts";
import { listingLeaks } from "./listing_guard.ts";

/**
 * MCP tool names: 1–128 of `[A-Za-z0-9_.-]`.
 *
 * @example
 * ```ts
 * import { MCP_TOOL_NAME } from "./publish_tool.ts";
 * MCP_TOOL_NAME.test("read_fx"); // true
 * ```
 */
export const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** One published extension tool. */
export interface PublishedTool {
  /** What is listed. */
  listing: ToolListing;
  /** The server that offers it. */
  server: ExtensionServer;
  /** Its name on the server. */
  remoteName: string;
  /** Its compiled input schema (calls are admitted against it). */
  schema: CompiledSchema;
  /** Its listing's fingerprint (a call is refused if the server now lists it otherwise). */
  fingerprint: string;
  /** Why the lock blocks it, when it does. */
  blocked?: Drift[];
}

/**
 * Publish `t` as listed by `server`: the published tool, or why it is skipped (one
 * value-free line). `protect`: the registry's protected values; `blocked`: the lock's
 * differences that block it.
 *
 * @example
 * ```ts
 * import { publishTool } from "./publish_tool.ts";
 * // const p = publishTool(server, { name: "echo", inputSchema: { type: "object" } }, protector);
 * ```
 */
export function publishTool(
  server: ExtensionServer,
  t: Tool,
  protect: Protector | undefined,
  blocked?: Drift[],
): PublishedTool | string {
  const remote = typeof t.name === "string" ? t.name : "";
  const name = `${remote}_${server.decl.name}`;
  if (!MCP_TOOL_NAME.test(remote) || !MCP_TOOL_NAME.test(name)) {
    return "its name is not a valid MCP tool name of at most 128 characters once published";
  }
  if (listingLeaks(protect, t)) return "its listing holds a protected value";
  let schema: CompiledSchema;
  try {
    schema = compileSchema(t.inputSchema);
  } catch {
    return `\`${name}\`: its input schema does not compile`;
  }
  // Like a declared description: no control characters, nonblank, at most 4000 units.
  const cleaned = typeof t.description === "string" ? cleanText(t.description).trim() : "";
  const description = cleaned !== ""
    ? cutUnits(cleaned, LIMITS.maxDescriptionUnits)
    : `Tool \`${remote}\` of extension \`${server.decl.name}\`.`;
  const extension = server.decl.name;
  const listing = blocked
    ? { name, description: BLOCKED_DESCRIPTION, inputSchema: { type: "object" }, extension }
    : { name, description, inputSchema: t.inputSchema as Record<string, unknown>, extension };
  const fingerprint = toolFingerprint(t);
  return { listing, server, remoteName: remote, schema, fingerprint, blocked };
}

/**
 * Whether two listings publish different names, descriptions or tool definitions.
 *
 * @example
 * ```ts
 * import { publishedDiffers } from "./publish_tool.ts";
 * publishedDiffers(new Map(), new Map()); // false
 * ```
 */
export function publishedDiffers(
  a: Map<string, PublishedTool>,
  b: Map<string, PublishedTool>,
): boolean {
  if (a.size !== b.size) return true;
  for (const [k, v] of a) {
    const w = b.get(k);
    if (w === undefined || w.listing.description !== v.listing.description) return true;
    if (w.fingerprint !== v.fingerprint) return true;
  }
  return false;
}
