/**
 * A minimal JSON-RPC-over-stdio client for benchmarks: it writes request lines and waits
 * for the response line with the same id, without parsing or validating anything else,
 * so the servers' own cost decides the comparison (an SDK client costs about as much per
 * call as either server). Not for use outside bench/: it trusts the server.
 *
 * @module
 */

/** One server process spoken to in raw JSON-RPC lines. */
export interface RawRpc {
  /** Send one request and resolve with its response line (unparsed). */
  call(method: string, params: unknown): Promise<string>;
  /** Stop the server. */
  close(): Promise<void>;
  /** The server process's pid (for its CPU time, see proc_cpu.ts). */
  pid: number;
}

/**
 * Spawn `command args`, run the MCP initialize handshake, and return the client.
 *
 * @example
 * ```ts
 * import { rawRpc } from "./raw_rpc_client.ts";
 * // const s = await rawRpc("npx", ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]);
 * // await s.call("tools/list", {});
 * // await s.close();
 * ```
 */
export async function rawRpc(command: string, args: string[]): Promise<RawRpc> {
  const child = new Deno.Command(command, {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const enc = new TextEncoder();
  const waiting = new Map<number, (line: string) => void>();
  const pump = (async () => {
    const dec = new TextDecoder();
    let buf = "";
    for await (const chunk of child.stdout) {
      buf += dec.decode(chunk, { stream: true });
      for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        // Both servers end a response with its id; anything else is parsed.
        const m = /"id":(\d+)\}\s*$/.exec(line.slice(-40));
        const id = m ? Number(m[1]) : idOf(line);
        waiting.get(id)?.(line);
        waiting.delete(id);
      }
    }
  })();
  let next = 0;
  const call = (method: string, params: unknown) => {
    const id = ++next;
    const done = new Promise<string>((resolve) => waiting.set(id, resolve));
    writer.write(enc.encode(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n"));
    return done;
  };
  await call("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "toolhost-bench-raw", version: "1" },
  });
  await writer.write(
    enc.encode(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n"),
  );
  return {
    call,
    pid: child.pid,
    async close() {
      await writer.close().catch(() => {});
      try {
        child.kill("SIGTERM");
      } catch { /* exited */ }
      await child.status;
      await pump.catch(() => {});
    },
  };
}

function idOf(line: string): number {
  try {
    const v = JSON.parse(line) as { id?: unknown };
    return typeof v.id === "number" ? v.id : NaN;
  } catch {
    return NaN;
  }
}
