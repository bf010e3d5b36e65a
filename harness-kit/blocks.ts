/**
 * Content block helpers: `text()`, `json()`, `image()`.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { extname } from "node:path";
import { detectImage } from "../lib/images/detect.ts";
import type { ImageBlock, ImageMime, JsonBlock, TextBlock } from "./types.ts";

/**
 * A text block.
 *
 * @example
 * ```ts
 * import { text } from "./blocks.ts";
 * text("3 files changed"); // { type: "text", text: "3 files changed" }
 * ```
 */
export function text(value: string): TextBlock {
  return { type: "text", text: String(value) };
}

/**
 * A JSON block.
 *
 * @example
 * ```ts
 * import { json } from "./blocks.ts";
 * json({ count: 3 }); // { type: "json", data: { count: 3 } }
 * ```
 */
export function json(data: unknown): JsonBlock {
  return { type: "json", data };
}

const BY_EXTENSION: Record<string, ImageMime> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
};

/**
 * An image block. Bytes are embedded as base64 and their format detected (PNG, JPEG or
 * WebP) unless `mimeType` is given; `{ path }` names a file below the invocation's
 * `context.outputDir` (toolhost embeds it), its type taken from `mimeType` or the
 * extension. Throws for an unrecognized format.
 *
 * @example
 * ```ts
 * import { image } from "./blocks.ts";
 * image({ path: "shots/board.png" }); // { type: "image", mimeType: "image/png", path: "shots/board.png" }
 * ```
 */
export function image(source: Uint8Array | { path: string }, mimeType?: ImageMime): ImageBlock {
  if (source instanceof Uint8Array) {
    const mime = mimeType ?? detectImage(source);
    if (mime === null) throw new Error("image(): the bytes are not a PNG, JPEG or WebP image");
    return { type: "image", mimeType: mime, data: Buffer.from(source).toString("base64") };
  }
  const mime = mimeType ?? BY_EXTENSION[extname(source.path).toLowerCase()];
  if (mime === undefined) {
    throw new Error(
      "image(): give mimeType for a path without a .png, .jpg, .jpeg or .webp extension",
    );
  }
  return { type: "image", mimeType: mime, path: source.path };
}
