/**
 * `serve --http`: `/healthz` and `/readyz` are behind the same Host/Origin checks as every
 * other endpoint (not the token). A page a browser was DNS-rebound to (its `Host` names
 * the attacker's domain) or a foreign page (its `Origin`) learned from them that toolhost
 * listened on the port; it now gets 403. A health checker still passes: HAProxy's
 * `option httpchk GET /readyz` is HTTP/1.0 without `Host`, others send the loopback address
 * they dial.
 */

import assert from "node:assert/strict";
import { connect } from "node:net";
import { startHttpServer } from "../../lib/mcp/http.ts";
import type { ToolSource } from "../../lib/mcp/tool_source.ts";

const SOURCE: ToolSource = {
  list: () => Promise.resolve([]),
  call: () => Promise.resolve({ content: [], isError: false }),
  close: () => Promise.resolve(),
};

/** The status line of a raw request `head` (it must end with an empty line). */
function rawStatus(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(head));
    let text = "";
    socket.on("data", (d: Uint8Array) => text += new TextDecoder().decode(d));
    socket.on("error", reject);
    socket.on("close", () => resolve(text.split("\r\n")[0]));
  });
}

Deno.test("serve over HTTP: the health probes are behind the Host/Origin checks, not the token", async () => {
  const http = await startHttpServer({
    bind: { host: "127.0.0.1", port: 0 },
    openSource: () => Promise.resolve(SOURCE),
    token: "probe-guard-token-0123456789",
  });
  const p = http.port;
  const get = (path: string, headers: string) =>
    rawStatus(p, `GET ${path} HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`);
  try {
    for (const path of ["/healthz", "/readyz"]) {
      assert.match(await get(path, "Host: rebound.example\r\n"), / 403 /, path);
      assert.match(await get(path, `Host: rebound.example:${p}\r\n`), / 403 /, path);
      assert.match(
        await get(path, `Host: 127.0.0.1:${p}\r\nOrigin: http://evil.example\r\n`),
        / 403 /,
        path,
      );
      // What health checkers send: the loopback address they dial, or (HTTP/1.0) no Host.
      assert.match(await get(path, `Host: 127.0.0.1:${p}\r\n`), / 200 /, path);
      assert.match(await get(path, `Host: localhost:${p}\r\n`), / 200 /, path);
      assert.match(await rawStatus(p, `GET ${path} HTTP/1.0\r\n\r\n`), / 200 /, path);
    }
  } finally {
    await http.close();
  }
});
