/**
 * One tool as a listing publishes it (registry tools, plugin tools, extension tools).
 *
 * @module
 */

/**
 * One listed tool.
 *
 * @example
 * ```ts
 * import type { ToolListing } from "./tool_listing.ts";
 * const t: ToolListing = { name: "read_app", description: "Read a file.", inputSchema: { type: "object" } };
 * console.log(t.name);
 * ```
 */
export interface ToolListing {
  /** Published name `<tool>_<artifactId>`. */
  name: string;
  /** Rendered description. */
  description: string;
  /** Input JSON Schema (root type object). */
  inputSchema: Record<string, unknown>;
  /** The extension an extension tool comes from (`[extensions.NAME]`); absent for others. */
  extension?: string;
}
