/**
 * `files_read`: a byte range of a file (`offsetBytes`, `maxBytes` default 512,000),
 * reporting total size, offset, returned bytes, `truncated` and the next offset. The range
 * never ends inside a UTF-8 character; text comes in ≤ 64 KiB text blocks after the json
 * block, and content that is not UTF-8 text (or holds NUL) comes base64-encoded.
 *
 * @module
 */

import fs from "node:fs";
import { Buffer } from "node:buffer";
import { PathError } from "../errors/errors.ts";
import type { Block, ToolResult } from "../results/types.ts";
import { resolveLogicalPath } from "../paths/resolve.ts";
import { ownership, withSandbox } from "../builtins/common.ts";
import type { BuiltinEnv } from "../builtins/context.ts";
import { NATIVE_LIMITS } from "./limits.ts";
import { decodeText, preadFully, textBlocks, utf8Boundary } from "./text.ts";
import { showPath } from "../paths/show_path.ts";
import { type Protector, REDACTED } from "../redact/types.ts";
import { scannedRanges, withProtectedLiterals } from "../redact/scan.ts";
import { spliceBytes } from "../redact/ranges.ts";
import { withByteScanner } from "../grep/byte_scan.ts";

const MARKER = new TextEncoder().encode(REDACTED);

/** Arguments of `files_read`. */
export interface FilesReadArgs {
  /** Logical file path. */
  path: string;
  /** First byte (default 0). */
  offsetBytes?: number;
  /** Bytes at most (default 512,000). */
  maxBytes?: number;
}

/**
 * Run `files_read`.
 *
 * @example
 * ```ts
 * import { runFilesRead } from "./read.ts";
 * // const r = await runFilesRead({ path: "src/big.log", offsetBytes: 512000 }, env);
 * ```
 */
export async function runFilesRead(args: FilesReadArgs, env: BuiltinEnv): Promise<ToolResult> {
  const r = resolveLogicalPath(env, args.path);
  const offset = args.offsetBytes ?? 0;
  const max = args.maxBytes ?? NATIVE_LIMITS.readDefaultBytes;
  return await withSandbox(r, env, async (box) => {
    const f = box.openFile(r.components, r.path);
    try {
      const size = f.size; // of the inode the sandbox verified and opened
      if (offset > size) {
        throw new PathError(
          `offsetBytes is past the end of ${showPath(r.path)}, which has ${size} bytes.`,
        );
      }
      const want = Math.min(max, size - offset);
      const readInto = (into: Uint8Array, at: number, n: number) => {
        let got = 0;
        while (got < n) {
          const r = fs.readSync(f.fd, into, got, n - got, at + got);
          if (r === 0) break;
          got += r;
        }
        return got;
      };
      let bytes = preadFully((b, o, l, p) => fs.readSync(f.fd, b, o, l, p), offset, want);
      const more = offset + bytes.length < size;
      if (more) bytes = bytes.subarray(0, utf8Boundary(bytes, bytes.length) || bytes.length);
      const returned = bytes.length;
      bytes = await protectWindow(env.protect, readInto, offset, bytes, size);
      const text = decodeText(bytes);
      const truncated = offset + returned < size;
      const meta = {
        ...ownership(r),
        totalBytes: size,
        offset,
        returnedBytes: returned,
        truncated,
        nextOffset: truncated ? offset + returned : null,
        encoding: text === undefined ? "base64" : "utf-8",
      };
      const content: Block[] = [{ type: "json", data: meta }];
      content.push(...textBlocks(text ?? Buffer.from(bytes).toString("base64")));
      return { content, isError: false };
    } finally {
      fs.closeSync(f.fd);
    }
  });
}

/**
 * The window `[offset, offset + bytes.length)` with protected values redacted: the source
 * around it (one longest form on each side) is read too, so an occurrence the window cuts
 * is replaced whole and no part of it is returned. The forms are found with the SIMD byte
 * scanner of lib/grep.
 */
async function protectWindow(
  protect: Protector | undefined,
  read: (into: Uint8Array, at: number, n: number) => number,
  offset: number,
  bytes: Uint8Array,
  size: number,
): Promise<Uint8Array> {
  if (!protect?.active) return bytes;
  const literals = withProtectedLiterals([], protect);
  if (literals.length === 0) return protect.bytes(bytes); // too many forms for the scanner
  const pad = protect.maxBytes;
  const from = Math.max(0, offset - pad);
  const to = Math.min(size, offset + bytes.length + pad);
  return await withByteScanner((sc) => {
    const data = sc.reserve(to - from);
    const got = read(data, from, to - from);
    data.set(bytes, offset - from); // the window exactly as it was read before
    sc.setLiterals(literals);
    const ranges = scannedRanges(sc, protect, 0, Math.max(got, offset - from + bytes.length));
    if (ranges.length === 0) return bytes;
    const start = offset - from;
    return spliceBytes(sc.data(), ranges, start, start + bytes.length, MARKER, false);
  });
}
