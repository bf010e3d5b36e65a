/**
 * Streamable HTTP: an empty JSON-RPC batch (`[]`) is an Invalid Request (JSON-RPC 2.0:
 * one `-32600` error, id null). Before, the SDK's transport found no message in it and
 * answered `202 Accepted`, as for notifications.
 */

import assert from "node:assert/strict";
import { startHttpServer } from "../../lib/mcp/http.ts";
import type { ToolSource } from "../../lib/mcp/tool_source.ts";
import { INIT_BODY, MCP_POST_HEADERS } from "./_http_serve.ts";

const SOURCE: ToolSource = {
  list: () => Promise.resolve([]),
  call: () => Promise.resolve({ content: [], isError: false }),
  close: () => Promise.resolve(),
};

Deno.test("serve over HTTP: an empty batch is answered 400 -32600, in a session or not", async () => {
  const http = await startHttpServer({
    bind: { host: "127.0.0.1", port: 0 },
    openSource: () => Promise.resolve(SOURCE),
  });
  try {
    const init = await fetch(http.url, {
      method: "POST",
      headers: MCP_POST_HEADERS,
      body: INIT_BODY,
    });
    await init.body?.cancel();
    const sid = init.headers.get("mcp-session-id")!;
    assert.ok(sid);
    for (const headers of [{ ...MCP_POST_HEADERS, "mcp-session-id": sid }, MCP_POST_HEADERS]) {
      const res = await fetch(http.url, { method: "POST", headers, body: "[]" });
      assert.equal(res.status, 400);
      const body = await res.json();
      assert.equal(body.error.code, -32600);
      assert.equal(body.id, null);
    }
  } finally {
    await http.close();
  }
});
