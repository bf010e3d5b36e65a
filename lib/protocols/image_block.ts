/**
 * Admission of json-protocol image blocks: `data` (strict standard base64) or `path`
 * (a file below the output directory, read safely and embedded), then the shared image
 * checks of `lib/images` (PNG/JPEG/WebP by signature, ≤ 4 MiB, MIME must match, no
 * animated PNG).
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { checkImage, decodeBase64Strict } from "../images/detect.ts";
import { type ImageBlock, LIMITS } from "../results/types.ts";
import type { RawImage } from "./json_validate.ts";
import { readOutputFile } from "./output_file.ts";

/** Outcome of {@linkcode admitImage}. */
export type ImageAdmission = { ok: true; block: ImageBlock } | { ok: false; rule: string };

const TOO_LARGE = "the image is larger than 4 MiB";

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1).replace(/\.$/, "");
}

async function imageBytes(
  image: RawImage,
  outputDir: string,
): Promise<Uint8Array | { rule: string }> {
  if (image.path !== undefined) {
    const read = await readOutputFile(outputDir, image.path, LIMITS.maxImageBytes, TOO_LARGE);
    return read.ok ? read.bytes : { rule: read.reason };
  }
  const data = image.data ?? "";
  // Allow a few bytes over the cap so that "too large" is told apart from "invalid".
  const bytes = decodeBase64Strict(data, { maxBytes: LIMITS.maxImageBytes + 3 });
  if (bytes !== null) return bytes;
  if (data.length > Math.ceil((LIMITS.maxImageBytes + 3) / 3) * 4) return { rule: TOO_LARGE };
  return { rule: "`data` is not valid standard base64" };
}

/**
 * Admit one image block; the result is always the embedded form
 * `{type: "image", mimeType, data}`. `index` is 0-based.
 *
 * @example
 * ```ts
 * import { admitImage } from "./image_block.ts";
 * const r = await admitImage({ mimeType: "image/gif", data: "R0lGODlh" }, "/tmp/out", 0);
 * console.log(r.ok); // false
 * ```
 */
export async function admitImage(
  image: RawImage,
  outputDir: string,
  index: number,
): Promise<ImageAdmission> {
  const at = `content block ${index + 1}`;
  const bytes = await imageBytes(image, outputDir);
  if (!(bytes instanceof Uint8Array)) return { ok: false, rule: `${at}: ${bytes.rule}` };
  const check = checkImage(bytes, image.mimeType);
  if (!check.ok) return { ok: false, rule: `${at}: ${lowerFirst(check.reason)}` };
  // Strict decoding is canonical, so given data already equals the re-encoded bytes.
  const data = image.data ??
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  return { ok: true, block: { type: "image", mimeType: check.mimeType, data } };
}
