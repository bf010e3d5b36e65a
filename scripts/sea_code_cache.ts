/**
 * The V8 code cache of the single executable's CLI bundle, made by the same `node` that
 * the binary is built from (V8 accepts a cache only from its own version and flags).
 *
 * A cache made right after compiling holds only the functions V8 compiles eagerly; the
 * rest are compiled again, from source, in every run. So the cache is made after the
 * bundle has run the start-up paths people wait on — `tools check` and `serve` up to an
 * answered `tools/list` and a `ping` (which loads the MCP SDK), on this repository's
 * examples/ (static: nothing runs but the bubblewrap probe, and `serve` writes only to a
 * temporary state folder, removed after) —
 * and then holds the bytecode of every function those paths compiled. A code cache is
 * bytecode and the literals of the source, never heap state: nothing of the build
 * machine's environment, folders, time or random state is in it, and V8 checks it against
 * the source and its own version and flags before using it (a mismatch only costs time).
 * When those runs fail, the cache made right after compiling is used instead.
 *
 * Measured alternatives (valgrind instruction counts of `tools check` on examples/, where
 * `node -e 0` is 503M): no cache 917M; a cache made right after compiling 849M (ASCII
 * bundle); this cache 737M; a V8 startup snapshot of the loaded bundle (`node
 * --build-snapshot`, what sea-config's `useSnapshot` embeds) 884M, since deserializing its
 * 10 MB heap costs more than it saves, and it would capture module state made at build
 * time — so it is not used. V8 flags (e.g. a larger young generation) make V8 reject the
 * cache, which costs more than they save.
 *
 * @module
 */

import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WRAPPER_HEAD, WRAPPER_TAIL } from "./sea_wrapper.ts";

/** `node -e` script: compile the wrapped bundle (argv[1]) and write its cache (argv[2]). */
const COMPILE_ONLY = 'const vm = require("node:vm"), fs = require("node:fs");' +
  "const [src, out] = process.argv.slice(1);" +
  "const code = process.env.TH_HEAD + fs.readFileSync(src, 'latin1') + process.env.TH_TAIL;" +
  'fs.writeFileSync(out, new vm.Script(code, { filename: "toolhost.cjs" }).createCachedData());';

/**
 * `node -e` script: compile the wrapped bundle (argv[1]) as the launcher does, run its
 * `main` for `tools check` and `serve` on examples/ (argv[3]) with the state folder
 * argv[4], then write the cache (argv[2]) and exit.
 */
const AFTER_RUNS = 'const vm = require("node:vm"), fs = require("node:fs");' +
  "const [src, out, examples, state] = process.argv.slice(1);" +
  "const code = process.env.TH_HEAD + fs.readFileSync(src, 'latin1') + process.env.TH_TAIL;" +
  'const script = new vm.Script(code, { filename: "toolhost.cjs" });' +
  "const mod = { exports: {} };" +
  'script.runInThisContext()(mod.exports, require, mod, "toolhost.cjs", ".");' +
  "(async () => {" +
  '  await mod.exports.main(["tools", "check", "--repo", examples]);' +
  '  await mod.exports.main(["serve", "--eval", "app/review", "--repo", examples,' +
  '    "--state-dir", state]);' +
  "  fs.writeFileSync(out, script.createCachedData());" +
  "  process.exit(0);" +
  "})();";

const REQUESTS = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "toolhost-build", version: "1" },
    },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
  // Answered by the MCP SDK, which `serve` loads only after its first answers: the cache
  // then holds the SDK's functions too.
  { jsonrpc: "2.0", id: 3, method: "ping" },
];

/** Options of {@linkcode makeCodeCache}. */
export interface CodeCacheOptions {
  /** The folder whose `examples/` the start-up paths run on. */
  root: string;
  /** How long those runs may take before the compile-only cache is made. Default 120 s. */
  timeoutMs?: number;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

/** Run AFTER_RUNS; true when `serve` answered `tools/list` and the cache was written. */
function runStartupPaths(
  node: string,
  bundle: string,
  out: string,
  o: CodeCacheOptions,
): Promise<boolean> {
  const state = mkdtempSync(join(tmpdir(), "toolhost_sea_cache_"));
  return new Promise<boolean>((resolve) => {
    const child = spawn(node, ["-e", AFTER_RUNS, bundle, out, join(o.root, "examples"), state], {
      cwd: o.root,
      stdio: ["pipe", "pipe", "ignore"],
      env: { ...process.env, TH_HEAD: WRAPPER_HEAD, TH_TAIL: WRAPPER_TAIL },
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), o.timeoutMs ?? 120_000);
    let buf = "";
    let answered = false;
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => {
      buf += d;
      for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        let id: unknown;
        try {
          id = (JSON.parse(line) as { id?: unknown }).id;
        } catch {
          continue; // `tools check`'s table
        }
        if (id === 1) {
          child.stdin.write(`${JSON.stringify(REQUESTS[1])}\n${JSON.stringify(REQUESTS[2])}\n`);
        } else if (id === 2) {
          child.stdin.write(`${JSON.stringify(REQUESTS[3])}\n`);
        } else if (id === 3) {
          answered = true;
          child.stdin.end(); // serve ends with its input
        }
      }
    });
    child.stdin.on("error", () => {}); // the child may exit first
    let settled = false;
    const finish = (ok: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      rmSync(state, { recursive: true, force: true });
      resolve(ok);
    };
    child.on("error", () => finish(false)); // it did not start: no cache
    child.on("close", (code) => finish(code === 0 && answered));
    child.stdin.write(`${JSON.stringify(REQUESTS[0])}\n`);
  });
}

/**
 * Write the V8 code cache of the (ASCII-only) CLI bundle `bundle` to `out`, made with
 * `node` after running the start-up paths (see the module documentation).
 *
 * @example
 * ```ts
 * import { makeCodeCache } from "./sea_code_cache.ts";
 * await makeCodeCache("node", "dist/sea/toolhost.cjs", "/tmp/toolhost.cache", { root: "." });
 * ```
 */
export async function makeCodeCache(
  node: string,
  bundle: string,
  out: string,
  o: CodeCacheOptions,
): Promise<void> {
  const log = o.log ?? (() => {});
  if (await runStartupPaths(node, bundle, out, o)) return;
  log("the start-up paths did not run to the end: caching the bundle as compiled");
  execFileSync(node, ["-e", COMPILE_ONLY, bundle, out], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { TH_HEAD: WRAPPER_HEAD, TH_TAIL: WRAPPER_TAIL },
  });
}
