/**
 * Bounds the memory `resources/read` replies can hold. A read makes a reply of up to
 * ~86 MiB (a 64 MiB artifact as base64 JSON); a client that asks for many and never reads
 * its replies would make the process hold them all. So reads go through one process-wide
 * FIFO gate (one read and encode at a time, at most {@link MAX_READ_WAITERS} waiting),
 * and before a read the gate looks at the reply backlog — the bytes of replies written
 * but not yet taken by the client: above {@link CONNECTION_BACKLOG_BYTES} for this
 * connection the read is refused; above {@link PROCESS_BACKLOG_BYTES} for all
 * connections it waits (bounded) for the backlog to drop. The gate is released only
 * after the reply was handed to the transport (next macrotask), so the next reader sees it.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import { McpError } from "@modelcontextprotocol/sdk/types.js";

/**
 * Unsent reply bytes of one connection above which a read is refused.
 *
 * @example
 * ```ts
 * import { CONNECTION_BACKLOG_BYTES } from "./resource_gate.ts";
 * CONNECTION_BACKLOG_BYTES > 0; // true
 * ```
 */
export const CONNECTION_BACKLOG_BYTES = 32 * 1024 * 1024;
/**
 * Unsent reply bytes of all connections above which a read waits.
 *
 * @example
 * ```ts
 * import { PROCESS_BACKLOG_BYTES } from "./resource_gate.ts";
 * PROCESS_BACKLOG_BYTES > 0; // true
 * ```
 */
export const PROCESS_BACKLOG_BYTES = 128 * 1024 * 1024;
/**
 * Most reads waiting for the gate; more are refused at once.
 *
 * @example
 * ```ts
 * import { MAX_READ_WAITERS } from "./resource_gate.ts";
 * MAX_READ_WAITERS > 0; // true
 * ```
 */
export const MAX_READ_WAITERS = 256;
/**
 * Longest wait for the process backlog to drop, ms.
 *
 * @example
 * ```ts
 * import { BACKLOG_WAIT_MS } from "./resource_gate.ts";
 * BACKLOG_WAIT_MS > 0; // true
 * ```
 */
export const BACKLOG_WAIT_MS = 30_000;
const POLL_MS = 20;
/**
 * MCP error code of a refused read (server error range).
 *
 * @example
 * ```ts
 * import { READ_REFUSED } from "./resource_gate.ts";
 * READ_REFUSED > 0; // true
 * ```
 */
export const READ_REFUSED = -32000;

/** Unsent reply bytes of one connection. */
export type Backlog = () => number;

const backlogs = new Set<Backlog>();
const queue: Array<() => void> = [];
let busy = false;

/**
 * Count `backlog` in the process total until the returned function is called.
 *
 * @example
 * ```ts
 * import { watchBacklog } from "./resource_gate.ts";
 * const stop = watchBacklog(() => 0);
 * stop();
 * ```
 */
export function watchBacklog(backlog: Backlog): () => void {
  backlogs.add(backlog);
  return () => void backlogs.delete(backlog);
}

/**
 * Unsent reply bytes of every watched connection.
 *
 * @example
 * ```ts
 * import { processBacklog } from "./resource_gate.ts";
 * processBacklog() >= 0; // true
 * ```
 */
export function processBacklog(): number {
  let sum = 0;
  for (const b of backlogs) sum += b();
  return sum;
}

/**
 * Run `read` alone in the process, once this connection's reply backlog allows it;
 * throws a value-free `McpError` when refused.
 *
 * @example
 * ```ts
 * import { gatedRead } from "./resource_gate.ts";
 * await gatedRead(() => 0, undefined, () => Promise.resolve(1)); // 1
 * ```
 */
export async function gatedRead<T>(
  backlog: Backlog | undefined,
  signal: AbortSignal | undefined,
  read: () => Promise<T>,
): Promise<T> {
  if (queue.length >= MAX_READ_WAITERS) refuse("too many reads are waiting; retry later");
  await acquire(signal);
  try {
    if ((backlog?.() ?? 0) > CONNECTION_BACKLOG_BYTES) {
      refuse("the client is not taking its replies; read them before asking for more");
    }
    await untilProcessBacklogDrops(signal);
    return await read();
  } finally {
    // Let the SDK hand the reply to the transport before the next reader checks.
    setTimeout(release, 0);
  }
}

function refuse(why: string): never {
  throw new McpError(READ_REFUSED, `The resource is not read now: ${why}.`);
}

function acquire(signal: AbortSignal | undefined): Promise<void> {
  signal?.throwIfAborted();
  if (!busy) {
    busy = true;
    return Promise.resolve();
  }
  return new Promise((resolve, reject) => {
    const turn = () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    };
    const onAbort = () => {
      const at = queue.indexOf(turn);
      if (at >= 0) queue.splice(at, 1);
      reject(signal?.reason);
    };
    queue.push(turn);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function release(): void {
  const next = queue.shift();
  if (next) next();
  else busy = false;
}

async function untilProcessBacklogDrops(signal: AbortSignal | undefined): Promise<void> {
  const deadline = Date.now() + BACKLOG_WAIT_MS;
  while (processBacklog() > PROCESS_BACKLOG_BYTES) {
    signal?.throwIfAborted();
    if (Date.now() >= deadline) refuse("the server holds too many unsent replies; retry later");
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
