/**
 * `toolhost serve --eval E [--http HOST:PORT]`: serve an agent eval's tools (and the
 * extensions it admits) over MCP — stdio by default, Streamable HTTP with `--http`.
 * Logs go to stderr only; stdout carries nothing but the stdio protocol.
 *
 * @module
 */

import process from "node:process";
import { isatty } from "node:tty";
import { Command } from "commander";
import { InvocationError } from "../../errors/errors.ts";
import { checkAllowedOrigins, parseBind } from "../../mcp/http_guard.ts";
import { checkSessionLimits, type SessionLimits } from "../../mcp/http_sessions.ts";
import { checkDrainTimeout } from "../../mcp/http_drain.ts";
import { checkMaxConnections } from "../../mcp/http_clients.ts";
import { serveStdio } from "../../mcp/stdio.ts";
import { crashSweep, sweepingSource } from "../crash_sweep.ts";
import { evalToolSource, type ToolSource } from "../../mcp/tool_source.ts";
import { Registry } from "../../registry/registry.ts";
import { prefetchCallPath } from "../../registry/call_path.ts";
import { checkStateDir } from "../../registry/state_dir_check.ts";
import {
  type CommonOptions,
  missingEvalError,
  openWorkspace,
  requireAgentEval,
  withCommon,
} from "../common_options.ts";
import { type CliIo, EXIT } from "../exit.ts";
import { signalExitCode } from "../interrupt.ts";
import { warnLockDisabled } from "../../lock/open_lock.ts";
import { isEnvName } from "../../process/env.ts";

/** Options of `serve`. */
interface ServeOptions extends CommonOptions {
  eval?: string;
  http?: string;
  allowRemote?: boolean;
  allowOrigin?: string[];
  tokenEnv?: string;
  maxSessions?: string;
  maxConnections?: string;
  sessionIdleTimeout?: string;
  drainTimeout?: string;
  lock?: boolean;
}

/**
 * Build the `serve` command.
 *
 * @example
 * ```ts
 * import { processIo } from "../exit.ts";
 * import { serveCommand } from "./serve.ts";
 * serveCommand(processIo, () => {});
 * ```
 */
export function serveCommand(io: CliIo, done: (code: number) => void): Command {
  const cmd = serveDefinition();
  withCommon(cmd).action(async (o: ServeOptions) => {
    if (o.eval === undefined) {
      throw await missingEvalError(o, true);
    }
    checkHttpFlags(o);
    // Read (and taken out of the environment tools inherit) before anything is opened.
    const token = o.tokenEnv === undefined ? undefined : readToken(o.tokenEnv);
    const { ws, stateDir } = await openWorkspace(o);
    requireAgentEval(ws, o.eval, "serve");
    const evalId = o.eval;
    const log = (line: string) => io.err(`toolhost serve: ${line}\n`);
    if (o.lock === false) warnLockDisabled((l) => io.err(l));
    // Calls a killed or crashed serve left running are swept once (crash_sweep.ts), never
    // through a state dir that is a symlink (Registry.open refuses it, but it sweeps first).
    checkStateDir(ws.root, stateDir);
    const sweep = crashSweep(stateDir, log);
    const open = async (): Promise<ToolSource> =>
      sweepingSource(
        prefetchingCalls(
          evalToolSource(
            await Registry.open(ws, evalId, {
              stateDir,
              lock: o.lock !== false,
              extensions: { log },
              // A tool that reads it anyway (toolhost's /proc/<pid>/environ, a config file)
              // never hands the credential guarding this server to a client.
              secrets: token === undefined ? undefined : [token],
            }),
          ),
        ),
        sweep,
      );
    const signal = o.http !== undefined
      ? await serveHttp(evalId, o, open, log, token)
      : await serveOnStdio(evalId, open, log, ws.root);
    // Ended by a signal: 128 + its number, as for `tools call` and any interrupted program
    // (a completed --http drain is a replica's normal end and returns no signal).
    done(signal === undefined ? EXIT.ok : signalExitCode(signal));
  });
  return cmd;
}

/** Refuse HTTP-only flags without `--http`, and bad HTTP values, before opening anything. */
function checkHttpFlags(o: ServeOptions): void {
  const httpOnly = o.allowRemote || o.tokenEnv || o.allowOrigin || o.maxSessions ||
    o.maxConnections || o.sessionIdleTimeout || o.drainTimeout;
  if (o.http === undefined && httpOnly) {
    throw new InvocationError(
      "--allow-remote, --allow-origin, --token-env, --max-sessions, --max-connections, " +
        "--session-idle-timeout and --drain-timeout need --http",
    );
  }
  if (o.http !== undefined) {
    parseBind(o.http);
    checkAllowedOrigins(o.allowOrigin ?? []);
    sessionLimits(o);
    maxConnections(o);
    drainTimeout(o);
  }
}

/** `serve`'s description, options and help text. */
function serveDefinition(): Command {
  return new Command("serve")
    .description(
      "Serve an agent eval's tools over MCP: stdio by default, Streamable HTTP with --http. " +
        "One connection (or HTTP session) owns one registry; its tool sessions and extension " +
        "servers stop with full cleanup when it ends, and on SIGINT/SIGTERM/SIGHUP.\n" +
        "With --http, SIGTERM drains first: /readyz turns 503, new sessions are refused and " +
        "open requests may finish (up to --drain-timeout). GET /healthz and /readyz are for " +
        "load balancers and need no token.\n" +
        "Exit status: 0 when the stdio client closes the connection, and after an --http " +
        "drain that let every open request finish; 130, 143 or 129 when SIGINT, SIGTERM or " +
        "SIGHUP ended the server otherwise (a drain cut short by --drain-timeout or a second " +
        "signal: 143), once cleanup is confirmed; 1 when cleanup could not be confirmed.",
    )
    .option("--eval <eval>", "the agent eval, e.g. app/review (required)")
    .option(
      "--http <host:port>",
      "serve Streamable HTTP on HOST:PORT at /mcp (loopback only by default)",
    )
    .option("--allow-remote", "allow a non-loopback --http address (requires --token-env)")
    .option(
      "--allow-origin <origin...>",
      "extra accepted Origin values (default: loopback origins)",
    )
    .option("--token-env <name>", "require `Authorization: Bearer <$NAME>` on every HTTP request")
    .option(
      "--max-sessions <n>",
      "most concurrent HTTP sessions (1-65536); at the cap the least recently used idle " +
        "session is evicted for a new client, 503 + Retry-After when all are busy (default 128)",
    )
    .option(
      "--max-connections <n>",
      "most HTTP connections a request passed the guards on (1-65536); at the cap the one " +
        "idle longest is closed for a new one, 503 + Retry-After when all have a request " +
        "open (default 1024)",
    )
    .option(
      "--session-idle-timeout <duration>",
      "close an HTTP session idle this long: 90s, 15m, 1h (1s-24h; default 15m)",
    )
    .option(
      "--drain-timeout <duration>",
      "on SIGTERM, wait this long for open HTTP requests before closing every session: " +
        "0s, 30s, 2m (0s-1h; default 30s)",
    )
    .option("--no-lock", "skip toolhost.lock verification (development only; warns loudly)")
    .addHelpText(
      "after",
      "\nExamples:\n  toolhost serve --eval app/review\n" +
        "  toolhost serve --eval app/review --http 127.0.0.1:8765 \\\n" +
        "    --token-env TOOLHOST_MCP_TOKEN\n" +
        "  toolhost serve --eval app/review --http 127.0.0.1:8765 \\\n" +
        "    --max-sessions 16 --session-idle-timeout 5m\n" +
        "  toolhost serve --eval app/review --http 127.0.0.1:8765 --drain-timeout 20s\n",
    );
}

/**
 * `source`, loading the registry's call path (lib/registry/call_path.ts) once a listing
 * has been answered rather than before: a client lists tools first, and the listing
 * needs none of it.
 */
function prefetchingCalls(source: ToolSource): ToolSource {
  const list = source.list;
  return {
    ...source,
    list: async () => {
      const tools = await list();
      prefetchCallPath(); // after this turn, when the answer has been written
      return tools;
    },
  };
}

/** Serve on stdio until the connection ends; the signal that ended it, if one did. */
async function serveOnStdio(
  evalId: string,
  open: () => Promise<ToolSource>,
  log: (line: string) => void,
  root: string,
): Promise<string | undefined> {
  const source = await open();
  const restore = guardStdout();
  try {
    log(`serving eval ${evalId} on stdio`);
    // A person who runs it by hand would otherwise see nothing happen: say what it waits for.
    if (isatty(0)) log(terminalHint(evalId, root));
    const { reason } = await serveStdio(source, {
      log,
      instructions: `Tools of the toolhost eval ${evalId}.`,
    });
    return reason.startsWith("SIG") ? reason : undefined;
  } finally {
    restore(); // serveStdio released stdin and stdout itself
  }
}

/** What `serve` at a terminal waits for, and what a person at one should do instead. */
function terminalHint(evalId: string, root: string): string {
  const repo = /^[\w./@+-]+$/.test(root) ? root : `'${root.replaceAll("'", `'\\''`)}'`;
  return "standard input is a terminal, but serve speaks MCP (JSON-RPC) with the MCP client " +
    "that starts it, so nothing more appears here. Register the command " +
    `\`toolhost serve --eval ${evalId} --repo ${repo}\` in your client (docs/mcp.md), or ` +
    `try a tool with \`toolhost tools call TOOL --eval ${evalId}\`; Ctrl-C stops this server.`;
}

/** Route console output to stderr so nothing but protocol reaches stdout. */
function guardStdout(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  return () => Object.assign(console, saved);
}

/**
 * Serve over HTTP until a signal; once cleanup is confirmed, returns that (first) signal,
 * or undefined after a SIGTERM drain that let every open request finish.
 */
async function serveHttp(
  evalId: string,
  o: ServeOptions,
  open: () => Promise<ToolSource>,
  log: (line: string) => void,
  token: string | undefined,
): Promise<string | undefined> {
  const bind = parseBind(o.http!);
  const limits = sessionLimits(o);
  await (await open()).close(); // fail fast on a bad eval, before binding
  // Loaded only for --http: the Streamable HTTP stack is most of serve's start-up on stdio.
  const { startHttpServer } = await import("../../mcp/http.ts");
  const http = await startHttpServer({
    bind,
    openSource: open,
    allowRemote: o.allowRemote ?? false,
    allowOrigins: o.allowOrigin,
    token,
    tokenSource: `--token-env ${o.tokenEnv}`,
    ...limits,
    maxConnections: maxConnections(o),
    drainTimeoutMs: drainTimeout(o),
    log,
    instructions: `Tools of the toolhost eval ${evalId}.`,
  });
  // Handlers first: once the "serving" line is out, a signal is always handled (drained).
  const signals = watchSignals();
  log(`serving eval ${evalId} on ${http.url}`);
  const signal = await signals.next();
  let drained = false;
  if (signal === "SIGTERM") {
    log(`SIGTERM: draining (${http.sessionCount} session(s)); no new sessions`);
    // A second signal cuts the drain short; cleanup still runs to the end.
    let cut = false;
    void signals.next().then((s) => {
      cut = true;
      log(`${s}: drain cut short`);
      return http.close();
    }).catch(() => {});
    const { abandoned } = await http.drain();
    if (abandoned > 0) log(`drain timeout: ${abandoned} open request(s) cut`);
    drained = abandoned === 0 && !cut;
  } else {
    log(`${signal}: closing ${http.sessionCount} session(s)`);
    await http.close();
  }
  signals.stop();
  log("cleanup confirmed");
  // A drain that let every open request finish is a rolling restart going as planned:
  // exit 0 (issue 20), so a supervisor counts it as a clean stop.
  return drained ? undefined : signal;
}

/** The validated `--drain-timeout`, ms. */
function drainTimeout(o: ServeOptions): number {
  return checkDrainTimeout(
    o.drainTimeout === undefined ? undefined : parseDuration(o.drainTimeout),
  );
}

/** The validated `--max-sessions` and `--session-idle-timeout`. */
function sessionLimits(o: ServeOptions): SessionLimits {
  return checkSessionLimits({
    maxSessions: o.maxSessions === undefined ? undefined : parseMaxSessions(o.maxSessions),
    idleTimeoutMs: o.sessionIdleTimeout === undefined
      ? undefined
      : parseIdleTimeout(o.sessionIdleTimeout),
  });
}

/** The validated `--max-connections`. */
function maxConnections(o: ServeOptions): number {
  const text = o.maxConnections;
  return checkMaxConnections(text === undefined ? undefined : parseMaxSessions(text));
}

/** `--max-sessions N`: digits only (the range is checked with the idle timeout). */
function parseMaxSessions(text: string): number {
  return /^\d{1,6}$/.test(text) ? Number(text) : NaN;
}

/** `--session-idle-timeout`: `N` or `Ns` seconds, `Nm` minutes, `Nh` hours, in ms. */
function parseIdleTimeout(text: string): number {
  return parseDuration(text);
}

/** `N` or `Ns` seconds, `Nm` minutes, `Nh` hours, in ms; NaN when malformed. */
function parseDuration(text: string): number {
  const m = /^(\d{1,6})(s|m|h)?$/.exec(text);
  if (!m) return NaN;
  const unit = m[2] === "h" ? 3_600_000 : m[2] === "m" ? 60_000 : 1000;
  return Number(m[1]) * unit;
}

/** SIGINT/SIGTERM/SIGHUP one at a time, handled (not fatal) until `stop()`. */
function watchSignals(): { next(): Promise<string>; stop(): void } {
  const names = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  const queue: string[] = [];
  let waiter: ((s: string) => void) | undefined;
  const handlers = names.map((name) => {
    const h = () => {
      if (waiter) {
        const w = waiter;
        waiter = undefined;
        w(name);
      } else queue.push(name);
    };
    process.on(name, h);
    return [name, h] as const;
  });
  return {
    next: () => queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise((r) => waiter = r),
    stop: () => {
      for (const [name, h] of handlers) process.off(name, h);
    },
  };
}

function readToken(name: string): string {
  if (!isEnvName(name)) {
    throw new InvocationError("--token-env takes an environment variable name");
  }
  const v = process.env[name];
  if (v === undefined || v.trim() === "") {
    throw new InvocationError(`--token-env ${name}: the variable is unset or empty`);
  }
  const token = v.trim();
  if (/\s/.test(token)) {
    throw new InvocationError(`--token-env ${name}: the token must not contain whitespace`);
  }
  // The credential guarding the server never reaches a tool, session or extension.
  delete process.env[name];
  return token;
}
