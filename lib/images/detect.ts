/**
 * Image admission: signature/container-framing detection of PNG, JPEG and WebP, the
 * shared byte/format checks for image results and `view_image`, and strict base64.
 *
 * Detection checks framing, not full image validity: PNG needs its 8-byte signature
 * followed by an `IHDR` first chunk (and is refused when an `acTL` chunk — animation —
 * appears before the first `IDAT`); JPEG needs `FF D8 FF`; WebP needs a `RIFF` header whose
 * size field matches the byte length, the `WEBP` form type and a `VP8 `/`VP8L`/`VP8X` chunk.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { LIMITS } from "../results/types.ts";

/** The image formats toolhost admits. */
export type ImageMime = "image/png" | "image/jpeg" | "image/webp";

/** Outcome of {@linkcode checkImage}. */
export type ImageCheck =
  | { ok: true; mimeType: ImageMime }
  | { ok: false; reason: string };

const PNG_SIG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function ascii(bytes: Uint8Array, at: number, text: string): boolean {
  if (at + text.length > bytes.length) return false;
  for (let i = 0; i < text.length; i++) {
    if (bytes[at + i] !== text.charCodeAt(i)) return false;
  }
  return true;
}

function u32be(b: Uint8Array, at: number): number {
  return ((b[at] << 24) >>> 0) + (b[at + 1] << 16) + (b[at + 2] << 8) + b[at + 3];
}

function u32le(b: Uint8Array, at: number): number {
  return b[at] + (b[at + 1] << 8) + (b[at + 2] << 16) + ((b[at + 3] << 24) >>> 0);
}

function isPng(b: Uint8Array): boolean {
  if (b.length < 8 + 8 + 13 + 4) return false;
  for (let i = 0; i < 8; i++) if (b[i] !== PNG_SIG[i]) return false;
  return u32be(b, 8) === 13 && ascii(b, 12, "IHDR");
}

/** True when an `acTL` chunk precedes the first `IDAT` (an animated PNG). */
function isAnimatedPng(b: Uint8Array): boolean {
  let at = 8;
  while (at + 8 <= b.length) {
    const len = u32be(b, at);
    if (ascii(b, at + 4, "IDAT")) return false;
    if (ascii(b, at + 4, "acTL")) return true;
    at += 12 + len;
  }
  return false;
}

function isJpeg(b: Uint8Array): boolean {
  return b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
}

function isWebp(b: Uint8Array): boolean {
  if (b.length < 20 || !ascii(b, 0, "RIFF") || !ascii(b, 8, "WEBP")) return false;
  if (u32le(b, 4) + 8 !== b.length) return false;
  return ascii(b, 12, "VP8 ") || ascii(b, 12, "VP8L") || ascii(b, 12, "VP8X");
}

/**
 * Identify PNG, JPEG or WebP bytes by signature and container framing.
 *
 * @example
 * ```ts
 * import { detectImage } from "./detect.ts";
 * detectImage(new Uint8Array([0xff, 0xd8, 0xff, 0xe0])); // "image/jpeg"
 * detectImage(new TextEncoder().encode("GIF89a")); // null
 * ```
 */
export function detectImage(bytes: Uint8Array): ImageMime | null {
  if (isPng(bytes)) return "image/png";
  if (isJpeg(bytes)) return "image/jpeg";
  if (isWebp(bytes)) return "image/webp";
  return null;
}

/**
 * Apply the image admission rules: nonempty, at most 4 MiB (`LIMITS.maxImageBytes`),
 * a supported format identified by its bytes, matching `declaredMime` when given, and
 * not an animated PNG. Reasons never contain the bytes or the declared value.
 *
 * @example
 * ```ts
 * import { checkImage } from "./detect.ts";
 * const r = checkImage(new Uint8Array([0xff, 0xd8, 0xff, 0xdb]), "image/png");
 * if (!r.ok) console.log(r.reason); // MIME type does not match the image bytes
 * ```
 */
export function checkImage(bytes: Uint8Array, declaredMime?: string): ImageCheck {
  if (bytes.length === 0) return { ok: false, reason: "The image is empty." };
  if (bytes.length > LIMITS.maxImageBytes) {
    return { ok: false, reason: "The image is larger than 4 MiB; use a smaller image." };
  }
  const mime = detectImage(bytes);
  if (mime === null) {
    return {
      ok: false,
      reason: "The image format is not supported; only PNG, JPEG and WebP images are accepted.",
    };
  }
  if (declaredMime !== undefined && declaredMime !== mime) {
    return {
      ok: false,
      reason: "The declared MIME type does not match the image bytes.",
    };
  }
  if (mime === "image/png" && isAnimatedPng(bytes)) {
    return { ok: false, reason: "Animated PNG images are not supported." };
  }
  return { ok: true, mimeType: mime };
}

/** Options of {@linkcode decodeBase64Strict}. */
export interface Base64Options {
  /** Largest decoded size accepted; longer input is rejected before decoding. Default 4 MiB. */
  maxBytes?: number;
}

const BASE64_RE = /^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Decode standard base64 strictly: standard alphabet, required `=` padding, no whitespace,
 * canonical trailing bits. Returns null for invalid input or input whose decoded size
 * would exceed `maxBytes` (checked from the length alone, before decoding).
 *
 * @example
 * ```ts
 * import { decodeBase64Strict } from "./detect.ts";
 * decodeBase64Strict("aGk="); // Uint8Array [104, 105]
 * decodeBase64Strict("aGk"); // null (missing padding)
 * ```
 */
export function decodeBase64Strict(s: string, options: Base64Options = {}): Uint8Array | null {
  const maxBytes = options.maxBytes ?? LIMITS.maxImageBytes;
  if (typeof s !== "string" || s.length % 4 !== 0) return null;
  if (s.length > Math.ceil(maxBytes / 3) * 4) return null;
  if (!BASE64_RE.test(s)) return null;
  const buf = Buffer.from(s, "base64");
  if (buf.length > maxBytes) return null;
  // Reject non-canonical trailing bits (e.g. "aGl=" decodes like "aGk=").
  if (s.length > 0 && buf.toString("base64") !== s) return null;
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
}
