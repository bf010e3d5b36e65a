/**
 * Normalized tool results: what every tool call returns.
 *
 * @module
 */

/** A text content block. */
export interface TextBlock {
  /** Block type. */
  type: "text";
  /** The text. At most 64 KiB (UTF-8) from command tools. */
  text: string;
}

/** A JSON content block. */
export interface JsonBlock {
  /** Block type. */
  type: "json";
  /** Any JSON value. At most 512 KiB compact. */
  data: unknown;
}

/** An image block, always embedded base64 after normalization. */
export interface ImageBlock {
  /** Block type. */
  type: "image";
  /** `image/png`, `image/jpeg` or `image/webp`, matching the bytes. */
  mimeType: "image/png" | "image/jpeg" | "image/webp";
  /** Standard base64 of the image bytes. */
  data: string;
}

/**
 * An audio block (from an extension server), embedded base64 of at most 4 MiB, passed
 * through to MCP clients as it came.
 */
export interface AudioBlock {
  /** Block type. */
  type: "audio";
  /** `audio/…`. */
  mimeType: string;
  /** Standard base64 of the audio bytes. */
  data: string;
}

/** The contents of an embedded resource: text (≤ 64 KiB) or a blob (≤ 4 MiB decoded). */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; blob?: never }
  | { uri: string; mimeType?: string; blob: string; text?: never };

/** An embedded resource (from an extension server, or a toolhost artifact). */
export interface ResourceBlock {
  /** Block type. */
  type: "resource";
  /** The contents. */
  resource: ResourceContents;
}

/** A link to a resource (from an extension server, or a toolhost artifact). */
export interface ResourceLinkBlock {
  /** Block type. */
  type: "resource_link";
  /** The resource's URI (at most 2048 characters). */
  uri: string;
  /** Its name. */
  name: string;
  /** Its media type, if given. */
  mimeType?: string;
  /** A description, if given. */
  description?: string;
}

/** Any normalized content block. */
export type Block =
  | TextBlock
  | JsonBlock
  | ImageBlock
  | AudioBlock
  | ResourceBlock
  | ResourceLinkBlock;

/** A normalized tool result. */
export interface ToolResult {
  /** 1–32 content blocks (errors carry exactly one text block). */
  content: Block[];
  /** True for authored and system errors. */
  isError: boolean;
}

/** Result-level limits from the seed. */
export const LIMITS = {
  /** Max content blocks in a json-protocol result. */
  maxBlocks: 32,
  /** Max UTF-8 bytes of one text block. */
  maxTextBytes: 64 * 1024,
  /** Max compact JSON bytes of one json block. */
  maxJsonBytes: 512 * 1024,
  /** Max bytes of the normalized result (serialized). */
  maxResultBytes: 8 * 1024 * 1024,
  /** Max decoded bytes of an image (and of an audio block or resource blob). */
  maxImageBytes: 4 * 1024 * 1024,
  /** Max characters of a resource URI. */
  maxUriChars: 2048,
  /** Max bytes captured from each process stream. */
  maxStreamBytes: 16 * 1024 * 1024,
  /** Max serialized bytes of call arguments. */
  maxArgsBytes: 64 * 1024,
  /** Max bytes of a declaration or schema. */
  maxDeclarationBytes: 8 * 1024 * 1024,
  /** Max UTF-16 code units of a description. */
  maxDescriptionUnits: 4000,
  /** Default command deadline in ms. */
  defaultTimeoutMs: 120000,
  /** Max command deadline in ms. */
  maxTimeoutMs: 2147483647,
  /** Max declared execution paths per command. */
  maxExecutionPaths: 64,
} as const;

/**
 * Build an error result with one text block.
 *
 * @example
 * ```ts
 * import { errorResult } from "./types.ts";
 * errorResult("The tool exited with status 3."); // { content: [...], isError: true }
 * ```
 */
export function errorResult(text: string): ToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * Build a success result with one text block.
 *
 * @example
 * ```ts
 * import { textResult } from "./types.ts";
 * textResult("hello");
 * ```
 */
export function textResult(text: string): ToolResult {
  return { content: [{ type: "text", text }], isError: false };
}

/**
 * Build a success result with one json block.
 *
 * @example
 * ```ts
 * import { jsonResult } from "./types.ts";
 * jsonResult({ lines: [] });
 * ```
 */
export function jsonResult(data: unknown): ToolResult {
  return { content: [{ type: "json", data }], isError: false };
}
