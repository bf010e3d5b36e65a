/**
 * One MCP client of the scale-out run (scale_out_run.ts): initialize through the
 * balancer, list tools, then make calls cycling `read`, `info` and `count` until it has
 * its count of successful calls, initializing again whenever its session is lost.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** What the clients of one run counted (shared by all of them). */
export interface Tally {
  /** Successful calls. */
  calls: number;
  /** Latency of every successful call, ms. */
  latencies: number[];
  /** Latencies by tool name, ms. */
  byTool: Map<string, number[]>;
  /** Latency of every `initialize` + `tools/list`, ms. */
  inits: number[];
  /** Calls answered with an error result. */
  errorResults: number;
  /**
   * `count` results that were not one more than the session's previous one: a request
   * routed to another replica than its session's, or a tool session restarted under it.
   */
  countGaps: number;
  /** Sessions lost (drained, killed or unreachable replica) and initialized again. */
  sessionsLost: number;
  /** Clients that did not make all their calls before the deadline. */
  unfinished: number;
  /** How sessions were lost, by kind. */
  lossKinds: Map<string, number>;
}

const CYCLE: [string, Record<string, unknown>][] = [
  ["read_app", { path: "README.md" }],
  ["info_app", {}],
  ["count_app", {}],
];

/** How a session was lost: the HTTP status when there is one, else the error's start. */
function lossKind(e: unknown): string {
  const code = (e as { code?: unknown }).code;
  const html = /<html>/.test(String(e)) ? " (HAProxy's own page)" : "";
  if (typeof code === "number" && code >= 400) return `HTTP ${code}${html}`;
  return String(e).replace(/[0-9a-f-]{36}/g, "ID").slice(0, 60);
}

/** A fresh client connected through `url`, its tools listed. */
async function connect(url: string, deadline: number, t: Tally) {
  const t0 = performance.now();
  const c = new Client({ name: "scale", version: "1" });
  // A replica that dies mid-call cuts the call's event stream before its response; the
  // SDK client only reports that (onerror) and lets the request wait for its 60 s timeout.
  // Closing fails the request at once, so the client initializes again.
  c.onerror = (e) => {
    if (String(e).includes("SSE stream disconnected")) void c.close().catch(() => {});
  };
  const transport = new StreamableHTTPClientTransport(new URL(url));
  try {
    const timeout = Math.max(1000, deadline - Date.now());
    await c.connect(transport, { timeout });
    await c.listTools(undefined, { timeout });
  } catch (e) {
    await c.close().catch(() => {});
    throw e;
  }
  t.inits.push(performance.now() - t0);
  return { c, transport };
}

/**
 * Make `calls` successful calls through `url` before `deadline` (ms since the epoch),
 * counting into `t` (and calling `onCall` after each); on a lost session end it where it
 * may still live, back off, and initialize again.
 *
 * @example
 * ```ts
 * import { startClient } from "./scale_out_client.ts";
 * // await startClient("http://127.0.0.1:8700/mcp", 20, Date.now() + 60_000, tally);
 * ```
 */
export async function startClient(
  url: string,
  calls: number,
  deadline: number,
  t: Tally,
  onCall?: () => void,
): Promise<void> {
  let done = 0;
  let s: Awaited<ReturnType<typeof connect>> | undefined;
  let counted = 0; // `count` results of the current session
  let lostInARow = 0;
  while (done < calls && Date.now() < deadline) {
    try {
      if (s === undefined) {
        s = await connect(url, deadline, t);
        counted = 0;
      }
      const [name, args] = CYCLE[done % CYCLE.length];
      const t0 = performance.now();
      // A slow call on a loaded machine is not a lost session: wait for it as long as the
      // run may last (the SDK's default is 60 s), so only real losses initialize again.
      const timeout = Math.max(1000, deadline - Date.now());
      const res = await s.c.callTool({ name, arguments: args }, undefined, { timeout });
      const ms = performance.now() - t0;
      t.latencies.push(ms);
      const mine = t.byTool.get(name) ?? [];
      t.byTool.set(name, mine);
      mine.push(ms);
      if (res.isError) t.errorResults++;
      if (name === "count_app" && !res.isError) {
        const n = (res.structuredContent as { count?: unknown } | undefined)?.count;
        if (n !== ++counted) t.countGaps++;
      }
      done++;
      t.calls++;
      onCall?.();
      lostInARow = 0;
    } catch (e) {
      const kind = lossKind(e);
      t.lossKinds.set(kind, (t.lossKinds.get(kind) ?? 0) + 1);
      // The session is gone (replica drained or killed) or unreachable now: end it where it
      // may still live (so it does not wait for the idle timeout), then initialize again
      // elsewhere, backing off while the balancer has no server to offer.
      t.sessionsLost++;
      await s?.transport.terminateSession().catch(() => {});
      await s?.c.close().catch(() => {});
      s = undefined;
      lostInARow++;
      await new Promise((res) => setTimeout(res, Math.min(2000, 50 * 2 ** (lostInARow - 1))));
    }
  }
  if (done < calls) t.unfinished++;
  await s?.c.close().catch(() => {});
}
