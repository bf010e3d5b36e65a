/**
 * Helpers of the `toolhost init` tests: temporary folders, the generated `node --test`
 * file run as a subprocess (with and without TOOLHOST_BIN), a TOOLHOST_BIN wrapper that
 * runs this checkout's cli.ts with Deno, and a /proc scan for leftover processes.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCapture } from "../helpers/cli.ts";

/** This checkout's root, from this file's location. */
export const REPO: string = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");

/** A temporary folder removed by `cleanup()` / `await using`. */
export interface TempDir extends AsyncDisposable {
  /** Canonical path. */
  path: string;
  /** Remove it. */
  cleanup(): void;
}

/**
 * Make a temporary folder.
 *
 * @example
 * ```ts
 * await using tmp = tempDir();
 * ```
 */
export function tempDir(): TempDir {
  const path = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-init-test-")));
  const cleanup = () => rmSync(path, { recursive: true, force: true });
  return { path, cleanup, [Symbol.asyncDispose]: () => Promise.resolve(cleanup()) };
}

function shq(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/**
 * Write an executable `toolhost` wrapper into `dir` that runs this checkout's cli.ts with
 * the Deno running the tests; returns its path (for TOOLHOST_BIN).
 *
 * @example
 * ```ts
 * const bin = toolhostWrapper("/tmp/x");
 * ```
 */
export function toolhostWrapper(dir: string): string {
  const path = join(dir, "toolhost");
  writeFileSync(
    path,
    `#!/bin/sh\nexec ${shq(Deno.execPath())} run -A --quiet ${shq(`${REPO}/cli.ts`)} "$@"\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

/** What `node --test` reported. */
export interface NodeTestRun {
  /** Exit code. */
  code: number;
  /** TAP output. */
  out: string;
  /** Counters from the TAP summary (`pass`, `fail`, `skipped`...). */
  counts: Record<string, number>;
}

/**
 * Run `node --test FILE` in `cwd`; TOOLHOST_BIN is set only when `toolhostBin` is given.
 *
 * @example
 * ```ts
 * const r = await nodeTest("/ws/tools/greet.test.mjs", "/ws");
 * ```
 */
export async function nodeTest(
  file: string,
  cwd: string,
  toolhostBin?: string,
): Promise<NodeTestRun> {
  const env = { ...Deno.env.toObject() };
  delete env.TOOLHOST_BIN;
  if (toolhostBin !== undefined) env.TOOLHOST_BIN = toolhostBin;
  const r = await new Deno.Command("node", {
    args: ["--test", "--test-reporter=tap", file],
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  const out = dec.decode(r.stdout) + dec.decode(r.stderr);
  const counts: Record<string, number> = {};
  for (const m of out.matchAll(/^# (\w+) (\d+)$/gm)) counts[m[1]] = Number(m[2]);
  return { code: r.code, out, counts };
}

/**
 * Assert the generated test passes: all of its tests without TOOLHOST_BIN except the
 * toolhost one (skipped), and all of them with it.
 *
 * @example
 * ```ts
 * await assertGeneratedTestPasses("/ws/tools/greet.test.mjs", "/ws", 4, "/tmp/toolhost");
 * ```
 */
export async function assertGeneratedTestPasses(
  file: string,
  cwd: string,
  total: number,
  toolhostBin?: string,
): Promise<void> {
  const r = await nodeTest(file, cwd, toolhostBin);
  assert.equal(r.code, 0, r.out);
  assert.equal(r.counts.tests, total, r.out);
  assert.equal(r.counts.fail, 0, r.out);
  assert.equal(r.counts.skipped, toolhostBin === undefined ? 1 : 0, r.out);
  assert.equal(r.counts.pass, toolhostBin === undefined ? total - 1 : total, r.out);
}

/**
 * Pids of processes whose command line mentions `needle` (from /proc).
 *
 * @example
 * ```ts
 * processesMentioning("/ws/tools/notes.mjs"); // []
 * ```
 */
export function processesMentioning(needle: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8");
      // A confined harness's bubblewrap (and its namespace init) carry its argv too.
      if (cmd.includes(needle) && !/^(\S*\/)?(bwrap|nsenter)\0/.test(cmd)) out.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/**
 * Run `toolhost init ...argv` in-process; asserts exit 0 and returns stdout.
 *
 * @example
 * ```ts
 * await init(["json-tool", "greet", "--repo", "/tmp/ws"]);
 * ```
 */
export async function init(argv: string[]): Promise<string> {
  const r = await runCapture(["init", ...argv]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.err, "");
  return r.out;
}

/**
 * Assert `tools check` of the whole workspace exits 0.
 *
 * @example
 * ```ts
 * await assertToolsCheck("/tmp/ws");
 * ```
 */
export async function assertToolsCheck(root: string, evalId?: string): Promise<void> {
  const r = await runCapture(["tools", "check", "--repo", root, ...(evalId ? [evalId] : [])]);
  assert.equal(r.code, 0, r.out + r.err);
}

/** A manifest with comments, a file Artifact first, and a nested folder Artifact. */
export const EXISTING_TOML = `# My workspace — keep this comment!
[artifacts.readme]   # a file Artifact first: init must skip it
path = "README.md"

[artifacts.code]
path = "src/code"    # nested two levels: the generated test finds the root at ../../

[artifacts.code.evals.review]
audience = "agent"
references = ["readme"]

[artifacts.code.views.agent_tools.read]
builtin = "read"
`;

/**
 * Write {@linkcode EXISTING_TOML} and its files into `root`.
 *
 * @example
 * ```ts
 * writeExisting("/tmp/ws");
 * ```
 */
export function writeExisting(root: string): void {
  Deno.mkdirSync(join(root, "src/code"), { recursive: true });
  writeFileSync(join(root, "README.md"), "# readme\n");
  writeFileSync(join(root, "src/code/main.txt"), "hello\n");
  writeFileSync(join(root, "toolhost.toml"), EXISTING_TOML);
}
