/**
 * Replies a client does not take stay bounded: a client that POSTs a batch of 20
 * `resources/read` of a 60 MB artifact and never reads the answer must not make
 * `serve --http` hold 20 encoded copies (it grew to 1.84 GB before the gate,
 * lib/mcp/resource_gate.ts), while another client still reads the artifact whole.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { tempWorkspace } from "../helpers/workspace.ts";
import { E2E_FILES, e2eToml } from "./_helpers.ts";
import { client, serveHttp } from "./_http_serve.ts";

const SIZE = 60 * 1024 * 1024;
/**
 * Peak RSS allowed, bytes: a read's transient copies (bytes, base64, JSON, encoded) for
 * the batch and the other client, one unsent reply, and the runtime. Measured ~1 GiB;
 * 4.2 GiB before the gate.
 */
const PEAK_BOUND = 1536 * 1024 * 1024;

function peakRss(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(Deno.readTextFileSync(`/proc/${pid}/status`));
  return Number(m?.[1] ?? NaN) * 1024;
}

/** Send `body` on a raw connection and never read the reply. */
async function sendAndNeverRead(url: string, sid: string, body: string): Promise<Deno.Conn> {
  const u = new URL(url);
  const conn = await Deno.connect({ hostname: u.hostname, port: Number(u.port) });
  const bytes = new TextEncoder().encode(body);
  const head = `POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\n` +
    "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
    `Mcp-Session-Id: ${sid}\r\nContent-Length: ${bytes.byteLength}\r\n\r\n`;
  const req = new Uint8Array([...new TextEncoder().encode(head), ...bytes]);
  for (let at = 0; at < req.byteLength;) at += await conn.write(req.subarray(at));
  return conn;
}

Deno.test("serve --http: a batch of big reads nobody takes does not grow memory", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
  const big = new Uint8Array(SIZE);
  for (let i = 0; i < SIZE; i++) big[i] = (i * 7) & 0xff; // NUL bytes: served as a blob
  Deno.writeFileSync(`${tmp.root}/app/out/r1.json`, big);
  const served = await serveHttp(tmp.root);
  let conn: Deno.Conn | undefined;
  try {
    const greedy = await client(served.url);
    await greedy.c.callTool({ name: "envelope_app", arguments: {} });
    const batch = Array.from({ length: 20 }, (_, i) => ({
      jsonrpc: "2.0",
      id: 100 + i,
      method: "resources/read",
      params: { uri: "toolhost://artifact/r1" },
    }));
    conn = await sendAndNeverRead(served.url, greedy.transport.sessionId!, JSON.stringify(batch));
    const normal = await client(served.url);
    await normal.c.callTool({ name: "envelope_app", arguments: {} });
    // The gate is FIFO: this read runs after every read of the batch was answered.
    const read = await normal.c.readResource({ uri: "toolhost://artifact/r1" });
    const blob = (read.contents[0] as { blob?: string }).blob ?? "";
    assert.deepEqual(Buffer.from(blob, "base64"), Buffer.from(big));
    const peak = peakRss(served.child.pid);
    console.error(`serve peak RSS: ${Math.round(peak / 2 ** 20)} MiB`);
    assert.ok(peak < PEAK_BOUND, `serve peaked at ${Math.round(peak / 2 ** 20)} MiB`);
    await normal.c.close();
    conn.close();
    conn = undefined;
    await greedy.c.close().catch(() => {});
  } finally {
    conn?.close();
    await served.stop();
  }
});
