/**
 * `serve`'s answers encoded into a reused buffer (lib/mcp/frame_writer.ts): every frame
 * arrives whole and in order through a pipe socket whose reader falls behind (writes then
 * wait and overlap, the buffer grows, the longest frames get bytes of their own), and a
 * stream that keeps chunks after their callback, such as a `PassThrough`, never gets the
 * reused buffer.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { PassThrough } from "node:stream";
import { FrameWriter } from "../../lib/mcp/frame_writer.ts";
import { REPO } from "./_helpers.ts";
import { frameOf } from "./_frame_writer_child.ts";

async function throughPipe(count: number, size: number): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      ...["run", "-A", "--config", `${REPO}/deno.json`],
      `${REPO}/tests/mcp/_frame_writer_child.ts`,
      String(count),
      String(size),
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.getReader();
  const chunks: Uint8Array[] = [];
  // Read the first chunk, then stop until the child's writes have had to wait.
  const first = await reader.read();
  if (first.value) chunks.push(first.value);
  await new Promise((r) => setTimeout(r, 300));
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
  const [status, stderr] = await Promise.all([child.status, new Response(child.stderr).text()]);
  assert.equal(status.code, 0, stderr);
  const text = Buffer.concat(chunks).toString("utf8");
  let at = 0;
  for (let i = 0; i < count; i++) {
    const want = frameOf(i, size);
    const got = text.slice(at, at + want.length);
    assert.ok(got === want, `frame ${i} arrived damaged or out of order`);
    at += want.length;
  }
  assert.equal(at, text.length, "more bytes than frames");
}

Deno.test("frames through a pipe socket arrive whole and in order: varying sizes", async () => {
  await throughPipe(120, 0);
});

Deno.test("frames through a pipe socket arrive whole and in order: each beyond the pipe", async () => {
  await throughPipe(60, 150_000);
});

Deno.test("a stream that keeps its chunks (PassThrough) gets bytes of its own per frame", async () => {
  const out = new PassThrough();
  const frames = new FrameWriter(out);
  await frames.write(`${"a".repeat(100)}\n`);
  await new Promise((r) => setTimeout(r, 0)); // every write callback has run
  await frames.write(`${"b".repeat(100)}\n`);
  out.end();
  const chunks: Buffer[] = [];
  for await (const c of out) chunks.push(c as Buffer);
  assert.equal(Buffer.concat(chunks).toString(), `${"a".repeat(100)}\n${"b".repeat(100)}\n`);
});
