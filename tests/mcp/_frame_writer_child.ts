/**
 * Child of frame_writer_test.ts: writes `count` numbered frames of the sizes the test
 * computes ({@link frameOf}) to its stdout, a pipe opened as a `net.Socket` as `serve`
 * opens it, through one `FrameWriter`; every third write is awaited, the others overlap.
 */

import net from "node:net";
import { FrameWriter } from "../../lib/mcp/frame_writer.ts";

/** Frame `i` of a run whose frames are `size` units (0: varying sizes, up to 2.2 M units). */
export function frameOf(i: number, size: number): string {
  const n = size > 0 ? size : i % 50 === 7 ? 2_200_000 : 1000 + ((i * 7919) % 300_000);
  // A multi-byte character now and then, so bytes and UTF-16 units differ.
  return `${i} ${String.fromCharCode(97 + (i % 26)).repeat(n)}${i % 5 === 0 ? "é" : ""}\n`;
}

if (import.meta.main) {
  const [count, size] = Deno.args.map(Number);
  const out = new net.Socket({ fd: 1, readable: false, writable: true });
  const frames = new FrameWriter(out);
  const pending: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const p = frames.write(frameOf(i, size));
    if (i % 3 === 0) await p;
    else pending.push(p);
  }
  await Promise.all(pending);
  await new Promise<void>((resolve) => out.end(resolve));
}
