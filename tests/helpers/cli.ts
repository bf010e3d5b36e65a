/**
 * Shared CLI test helpers: run the CLI in-process with captured output, or as a real
 * `deno run -A cli.ts` subprocess.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { runCli } from "../../lib/cli/main.ts";

/** The repository root (absolute). */
export const REPO_ROOT: string = fileURLToPath(new URL("../../", import.meta.url)).replace(
  /\/$/,
  "",
);

/** The examples workspace (absolute). */
export const EXAMPLES: string = `${REPO_ROOT}/examples`;

/**
 * Put the Deno running the tests on PATH (as `npx deno task test` does): scripts starting
 * `#!/usr/bin/env -S deno` (the examples' harness) are otherwise, rightly, not ready.
 */
function denoOnPath(): void {
  const dir = Deno.execPath().slice(0, Deno.execPath().lastIndexOf("/"));
  const path = Deno.env.get("PATH") ?? "";
  if (!path.split(":").includes(dir)) Deno.env.set("PATH", path ? `${dir}:${path}` : dir);
}
denoOnPath();

/**
 * A committed fixture workspace under tests/fixtures/workspaces (absolute).
 *
 * @example
 * ```ts
 * import { fixture } from "./cli.ts";
 * fixture("scoped"); // ".../tests/fixtures/workspaces/scoped"
 * ```
 */
export function fixture(name: string): string {
  return `${REPO_ROOT}/tests/fixtures/workspaces/${name}`;
}

/** What a CLI run produced. */
export interface CliRun {
  /** Exit code. */
  code: number;
  /** Everything written to stdout. */
  out: string;
  /** Everything written to stderr. */
  err: string;
}

/**
 * Run `runCli(argv)` in-process, capturing stdout and stderr.
 *
 * @example
 * ```ts
 * import { EXAMPLES, runCapture } from "./cli.ts";
 * const { code, out } = await runCapture(["tools", "list", "--repo", EXAMPLES, "--eval", "app/review"]);
 * ```
 */
export async function runCapture(argv: string[]): Promise<CliRun> {
  let out = "";
  let err = "";
  const code = await runCli(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

/** Options of {@link cliCommand}. */
export interface CliCommandOptions {
  /** Working directory. Default the repository root. */
  cwd?: string;
  /** Extra environment (added to the inherited one). */
  env?: Record<string, string>;
  /** stdout handling. Default "piped". */
  stdout?: "piped" | "null";
  /** stderr handling. Default "piped". */
  stderr?: "piped" | "null";
}

/**
 * The command `deno run -A --quiet cli.ts ...argv` (stdin closed), to `.spawn()` when a
 * test must signal or read it while it runs.
 *
 * @example
 * ```ts
 * import { cliCommand } from "./cli.ts";
 * const child = cliCommand(["tools", "call", "slow_app", "--eval", "app/review"]).spawn();
 * child.kill("SIGINT");
 * await child.output();
 * ```
 */
export function cliCommand(argv: string[], opts: CliCommandOptions = {}): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", `${REPO_ROOT}/cli.ts`, ...argv],
    cwd: opts.cwd ?? REPO_ROOT,
    env: opts.env,
    stdin: "null",
    stdout: opts.stdout ?? "piped",
    stderr: opts.stderr ?? "piped",
  });
}

/**
 * Run `deno run -A cli.ts ...argv` as a subprocess from the repository root.
 *
 * @example
 * ```ts
 * import { EXAMPLES, runProcess } from "./cli.ts";
 * const { code } = await runProcess(["tools", "check", "--repo", EXAMPLES]);
 * ```
 */
export async function runProcess(
  argv: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CliRun> {
  const out = await cliCommand(argv, opts).output();
  const dec = new TextDecoder();
  return { code: out.code, out: dec.decode(out.stdout), err: dec.decode(out.stderr) };
}
