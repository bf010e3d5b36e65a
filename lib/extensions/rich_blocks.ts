/**
 * The MCP content blocks beyond text and images — audio, embedded resources and
 * resource links — in both directions. Inbound (an extension server's result), each is
 * checked and bounded by the same rules as the rest of a result: base64 must be strict
 * and at most 4 MiB decoded, text is cleaned of control characters and capped at 64 KiB,
 * URIs are at most 2048 characters without control characters. Outbound (to an MCP
 * client), a block the client's negotiated protocol version does not have becomes a
 * short text note instead of an invalid message.
 *
 * @module
 */

import { decodeBase64Strict } from "../images/detect.ts";
import { capText, cleanText, cutUnits } from "../text/text_clean.ts";
import type { Protector } from "../redact/types.ts";
import {
  type AudioBlock,
  LIMITS,
  type ResourceBlock,
  type ResourceContents,
  type ResourceLinkBlock,
} from "../results/types.ts";

/** A checked block, or why it was refused (value-free). */
export type Checked<T> = T | { error: string };

const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,63}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,63}$/;
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function uriOf(v: unknown): string | undefined {
  return typeof v === "string" && v.length > 0 && v.length <= LIMITS.maxUriChars &&
      !CONTROL.test(v)
    ? v
    : undefined;
}

function mediaTypeOf(v: unknown): string | undefined | false {
  if (v === undefined) return undefined;
  return typeof v === "string" && MEDIA_TYPE.test(v) ? v : false;
}

/**
 * An inbound audio block.
 *
 * @example
 * ```ts
 * import { inboundAudio } from "./rich_blocks.ts";
 * inboundAudio({ type: "audio", data: "AAAA", mimeType: "audio/wav" }, "content block 1");
 * // { type: "audio", mimeType: "audio/wav", data: "AAAA" }
 * ```
 */
export function inboundAudio(item: Record<string, unknown>, at: string): Checked<AudioBlock> {
  const mime = mediaTypeOf(item.mimeType);
  if (typeof mime !== "string" || !mime.toLowerCase().startsWith("audio/")) {
    return { error: `The extension server's ${at} has no audio media type.` };
  }
  const data = typeof item.data === "string" ? item.data : "";
  if (decodeBase64Strict(data, { maxBytes: LIMITS.maxImageBytes }) === null) {
    return { error: `The extension server's ${at} is not valid base64 of at most 4 MiB.` };
  }
  return { type: "audio", mimeType: mime, data };
}

/** `text` as it is shown, protected values redacted: before any cut, never after. */
function shown(text: string, protect: Protector | undefined): string {
  return protect?.text(text) ?? text;
}

/**
 * An inbound embedded resource (text or blob); `protect`'s values are redacted from its
 * text before the 64 KiB cap cuts it.
 *
 * @example
 * ```ts
 * import { inboundResource } from "./rich_blocks.ts";
 * inboundResource({ type: "resource", resource: { uri: "x://a", text: "hi" } }, "content block 1");
 * // { type: "resource", resource: { uri: "x://a", text: "hi" } }
 * ```
 */
export function inboundResource(
  item: Record<string, unknown>,
  at: string,
  protect?: Protector,
): Checked<ResourceBlock> {
  const r = item.resource;
  const bad = { error: `The extension server's ${at} is not a valid embedded resource.` };
  if (!isObj(r)) return bad;
  const uri = uriOf(r.uri);
  const mime = mediaTypeOf(r.mimeType);
  if (uri === undefined || mime === false) return bad;
  const base = { uri, ...(mime ? { mimeType: mime } : {}) };
  let out: ResourceContents;
  if (typeof r.text === "string") {
    out = { ...base, text: capText(shown(cleanText(r.text), protect), LIMITS.maxTextBytes) };
  } else if (typeof r.blob === "string") {
    if (decodeBase64Strict(r.blob, { maxBytes: LIMITS.maxImageBytes }) === null) {
      return { error: `The extension server's ${at} is not valid base64 of at most 4 MiB.` };
    }
    out = { ...base, blob: r.blob };
  } else return bad;
  return { type: "resource", resource: out };
}

/**
 * An inbound resource link; `protect`'s values are redacted from its name and description
 * before they are cut.
 *
 * @example
 * ```ts
 * import { inboundLink } from "./rich_blocks.ts";
 * inboundLink({ type: "resource_link", uri: "x://a", name: "a" }, "content block 1");
 * // { type: "resource_link", uri: "x://a", name: "a" }
 * ```
 */
export function inboundLink(
  item: Record<string, unknown>,
  at: string,
  protect?: Protector,
): Checked<ResourceLinkBlock> {
  const uri = uriOf(item.uri);
  const mime = mediaTypeOf(item.mimeType);
  if (uri === undefined || typeof item.name !== "string" || mime === false) {
    return { error: `The extension server's ${at} is not a valid resource link.` };
  }
  const name = cutUnits(shown(cleanText(item.name), protect), 256) || uri;
  const description = typeof item.description === "string"
    ? cutUnits(shown(cleanText(item.description), protect), LIMITS.maxDescriptionUnits)
    : undefined;
  return {
    type: "resource_link",
    uri,
    name,
    ...(mime ? { mimeType: mime } : {}),
    ...(description ? { description } : {}),
  };
}

/**
 * Whether a negotiated protocol version has a content block type (`audio` from
 * 2025-03-26, `resource_link` from 2025-06-18; the rest always).
 *
 * @example
 * ```ts
 * import { versionHasBlock } from "./rich_blocks.ts";
 * versionHasBlock("2025-03-26", "resource_link"); // false
 * ```
 */
export function versionHasBlock(version: string, type: string): boolean {
  if (type === "audio") return version >= "2025-03-26"; // ISO dates compare as strings
  if (type === "resource_link") return version >= "2025-06-18";
  return true;
}

/**
 * The text note a block becomes for a client whose protocol version lacks its type.
 *
 * @example
 * ```ts
 * import { blockNote } from "./rich_blocks.ts";
 * blockNote({ type: "resource_link", uri: "toolhost://artifact/a", name: "a" });
 * // "[resource link: toolhost://artifact/a]"
 * ```
 */
export function blockNote(b: AudioBlock | ResourceLinkBlock): string {
  return b.type === "audio" ? `[audio: ${b.mimeType}]` : `[resource link: ${b.uri}]`;
}
