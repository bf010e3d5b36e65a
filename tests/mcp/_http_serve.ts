/**
 * Running `toolhost serve --http` for the HTTP end-to-end tests, and connecting to it.
 *
 * @module
 */
import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { E2E_EVAL, serveArgs, waitFor } from "./_helpers.ts";

/** A raw JSON-RPC `initialize` body, for tests that speak HTTP without the SDK client. */
export const INIT_BODY: string = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  },
});

/** The headers a Streamable HTTP POST carries. */
export const MCP_POST_HEADERS: Record<string, string> = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** A running `toolhost serve --http`. */
export interface Served {
  url: string;
  child: Deno.ChildProcess;
  stderr: () => string;
  stop(): Promise<Deno.CommandStatus>;
}

/** Start `serve --http 127.0.0.1:0` on the e2e eval of `root` with `extra` arguments. */
export async function serveHttp(
  root: string,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<Served> {
  const child = new Deno.Command(Deno.execPath(), {
    args: serveArgs("--eval", E2E_EVAL, "--repo", root, "--http", "127.0.0.1:0", ...extra),
    env: { TEST_PIDDIR: root, ...env },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let text = "";
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += value;
    }
  })();
  await waitFor(() => /on (http:\S+)/.test(text) || /toolhost: /.test(text), 60_000);
  const m = /on (http:\S+)/.exec(text);
  if (!m) {
    child.kill("SIGKILL");
    throw new Error(`serve did not start:\n${text}`);
  }
  return {
    url: m[1],
    child,
    stderr: () => text,
    async stop() {
      child.kill("SIGTERM");
      const status = await child.status;
      await pump;
      return status;
    },
  };
}

/** POST `body` with raw `headers` (node:http can forge `Host`); resolves to the status. */
export function rawStatus(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      if (res.statusCode === 200) res.destroy(), resolve(200);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** An SDK client connected to `url`. */
export async function client(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ c: Client; transport: StreamableHTTPClientTransport }> {
  const c = new Client({ name: "e2e-http", version: "1" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await c.connect(transport);
  return { c, transport };
}
