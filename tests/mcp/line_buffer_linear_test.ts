/**
 * `serve`'s stdio line buffer (lib/mcp/line_buffer.ts) frames a long line arriving in many
 * chunks in linear time: the bytes it copies are counted, not timed.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { LineBuffer } from "../../lib/mcp/line_buffer.ts";

Deno.test("LineBuffer: a 4 MiB line in 4 KiB chunks is copied about once", () => {
  const buf = new LineBuffer({ maxBufferSize: 8 * 1024 * 1024 });
  const chunk = Buffer.alloc(4096, 0x61);
  const concat = Buffer.concat;
  let copied = 0;
  Buffer.concat = (list: readonly Uint8Array[], total?: number) => {
    const out = concat(list, total);
    copied += out.byteLength;
    return out;
  };
  try {
    for (let i = 0; i < 1024; i++) {
      buf.append(chunk);
      assert.equal(buf.readLine(), null);
    }
    buf.append(Buffer.from("\r\nnext\npartial"));
    assert.equal(buf.readLine()?.length, 4 * 1024 * 1024);
    assert.equal(buf.readLine(), "next");
    assert.equal(buf.readLine(), null);
    buf.append(Buffer.from(" line\n"));
    assert.equal(buf.readLine(), "partial line");
    assert.equal(buf.readLine(), null);
  } finally {
    Buffer.concat = concat;
  }
  assert.ok(copied <= 3 * 4 * 1024 * 1024, `${copied} bytes copied`);
});

Deno.test("LineBuffer: the bound counts every unread byte, and an overflow drops them", () => {
  const buf = new LineBuffer({ maxBufferSize: 10 });
  buf.append(Buffer.from("abc\ndef"));
  assert.throws(() => buf.append(Buffer.from("ghij")), /exceeded maximum size of 10 bytes/);
  assert.equal(buf.readLine(), null);
  buf.append(Buffer.from("x\n"));
  assert.equal(buf.readLine(), "x");
  // Unread complete lines count too, as in the SDK's ReadBuffer.
  buf.append(Buffer.from("12345\n"));
  assert.throws(() => buf.append(Buffer.from("67890")), /exceeded/);
});
