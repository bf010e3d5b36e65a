/**
 * Streamable HTTP: a `GET` without a session is `405 Method Not Allowed` (with `Allow`),
 * the protocol's answer for "no SSE stream here". Clients that probe for the legacy
 * HTTP+SSE transport first (mcp-remote `--transport sse-first`) fall back to Streamable
 * HTTP on 404/405 only; before, the 400 made them give up ("SSE error: Non-200 status
 * code (400)").
 */

import assert from "node:assert/strict";
import { startHttpServer } from "../../lib/mcp/http.ts";
import type { ToolSource } from "../../lib/mcp/tool_source.ts";
import { MCP_POST_HEADERS } from "./_http_serve.ts";

const SOURCE: ToolSource = {
  list: () => Promise.resolve([]),
  call: () => Promise.resolve({ content: [], isError: false }),
  close: () => Promise.resolve(),
};

Deno.test("serve over HTTP: GET without a session is 405 with Allow; POST without one stays 400", async () => {
  const http = await startHttpServer({
    bind: { host: "127.0.0.1", port: 0 },
    openSource: () => Promise.resolve(SOURCE),
  });
  try {
    const get = await fetch(http.url, { headers: { accept: "text/event-stream" } });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get("allow"), "POST");
    assert.equal((await get.json()).error.code, -32000);
    const post = await fetch(http.url, {
      method: "POST",
      headers: MCP_POST_HEADERS,
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    assert.equal(post.status, 400);
    await post.body?.cancel();
  } finally {
    await http.close();
  }
});
