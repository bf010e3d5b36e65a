/**
 * `deno task compile`: build `dist/bin/toolhost` from cli.ts with `deno compile`.
 *
 * Permissions are the flags written in deno.json's `compile` task (passed through to
 * `deno compile`). They are `--allow-all`, and that is the narrowest set that works:
 * - reads and writes of the user's workspace, state directory, artifact roots and `init`
 *   targets, wherever they are; runs of user-declared tools, harnesses and hook commands
 *   (`--allow-run`); the author's whole environment (`--allow-env`); `serve --http`
 *   (`--allow-net`); uid/gid for `access(X_OK)` (`--allow-sys=uid,gid`); and
 * - `/proc/<pid>/stat`, which process-group supervision reads to confirm a process's
 *   identity before signalling it and that its group is gone. Deno grants `/proc/<pid>`
 *   reads only under `--allow-all` (not `--allow-read`, and not `-A` with any `--deny-*`),
 *   so any narrower set breaks tool calls and sessions on Linux.
 * tests/dist/permissions_test.ts pins this: it fails when Deno stops requiring
 * `--allow-all` for `/proc`, so the flags can then be narrowed.
 * Everything else the binary needs (first-party plugins, harness-kit templates as string
 * modules, npm packages, the grep wasm as a module) is in its module graph and embedded.
 *
 * `deno compile` needs Deno's `denort` runtime, which it downloads from Deno's release
 * host; set `DENORT_BIN` (Deno's own variable) to a denort binary of the same Deno
 * version where that host is unreachable. The script then runs the binary once
 * (`--version`) to prove it starts as toolhost.
 *
 * Usage: `deno task compile [--target TRIPLE] [--output PATH]`.
 *
 * @module
 */

import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT: string = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The targets `deno compile --target` accepts that the release builds. */
export const RELEASE_TARGETS: readonly string[] = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
];

/** Options of {@linkcode compileBinary}. */
export interface CompileOptions {
  /** A `deno compile --target` triple. Default: this machine. */
  target?: string;
  /** Output path. Default `dist/bin/toolhost` (`.exe` for a Windows target). */
  output?: string;
  /** Permission flags. Default: those of deno.json's `compile` task. */
  permissions?: string[];
  /** Give up after this many ms. Default 300000. */
  timeoutMs?: number;
}

/** The outcome of {@linkcode compileBinary}. */
export type CompileResult =
  | { ok: true; binary: string; bytes: number; verified: boolean }
  | {
    ok: false;
    reason: string;
    /** True when this machine cannot build at all (no denort runtime); false for a failure. */
    unavailable: boolean;
  };

/**
 * The permission flags written in deno.json's `compile` task.
 *
 * @example
 * ```ts
 * import { compilePermissions } from "./compile.ts";
 * compilePermissions(); // ["--allow-read", "--allow-write", ...]
 * ```
 */
export function compilePermissions(): string[] {
  const deno = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8"));
  const task: string = deno.tasks.compile;
  return task.split(/\s+/).filter((w) => /^--(allow|deny)-[a-z]+(=\S+)?$/.test(w));
}

function isWindows(target: string | undefined): boolean {
  return target ? target.includes("windows") : process.platform === "win32";
}

const DENORT_UNAVAILABLE = "deno compile could not download its denort runtime";

/**
 * Turn `deno compile`'s stderr into one line saying what went wrong, and what to do.
 *
 * @example
 * ```ts
 * import { failureReason } from "./compile.ts";
 * failureReason("error: dns error"); // "deno compile could not download its denort runtime ..."
 * ```
 */
export function failureReason(stderr: string): string {
  const plain = stderr.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "");
  if (/dl\.deno\.land|dns error|error sending request|denort/i.test(plain)) {
    return `${DENORT_UNAVAILABLE} (its release host is unreachable here); set DENORT_BIN ` +
      "to a denort binary of the same Deno version, or build the Node single binary instead: " +
      "`deno task build:sea` (what `deno task install` installs; it downloads no runtime)";
  }
  const line = plain.split("\n").find((l) => /^error/.test(l.trim()));
  return `deno compile failed: ${(line ?? plain.trim().split("\n")[0] ?? "no output").trim()}`;
}

function runCompile(args: string[], timeoutMs: number): Promise<{ code: number; err: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (c) => (err += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code: code ?? 1, err });
    });
  });
}

function verify(binary: string): string | undefined {
  const want = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")).version;
  let got = "";
  try {
    got = execFileSync(binary, ["--version"], {
      encoding: "utf8",
      env: { PATH: "/nonexistent" },
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 30_000,
    }).trim();
  } catch {
    // reported below
  }
  if (got === want) return undefined;
  return process.env.DENORT_BIN
    ? "the compiled binary did not start as toolhost: DENORT_BIN must name a denort " +
      "runtime (the full `deno` binary is not one)"
    : "the compiled binary did not start as toolhost";
}

/**
 * Compile cli.ts to a standalone binary; never throws for a failed build.
 *
 * @example
 * ```ts
 * import { compileBinary } from "./compile.ts";
 * const r = await compileBinary();
 * if (!r.ok) console.log(r.reason);
 * ```
 */
export async function compileBinary(options: CompileOptions = {}): Promise<CompileResult> {
  const exe = isWindows(options.target) ? ".exe" : "";
  const output = resolve(options.output ?? join(ROOT, "dist", "bin", `toolhost${exe}`));
  mkdirSync(dirname(output), { recursive: true });
  rmSync(output, { force: true });
  const args = [
    "compile",
    ...(options.permissions ?? compilePermissions()),
    ...(options.target ? ["--target", options.target] : []),
    "--output",
    output,
    join(ROOT, "cli.ts"),
  ];
  const { code, err } = await runCompile(args, options.timeoutMs ?? 300_000);
  if (code !== 0 || !existsSync(output)) {
    const reason = failureReason(err);
    return { ok: false, reason, unavailable: reason.startsWith(DENORT_UNAVAILABLE) };
  }
  const native = options.target === undefined;
  if (native) {
    const problem = verify(output);
    if (problem) {
      rmSync(output, { force: true });
      return { ok: false, reason: problem, unavailable: false };
    }
  }
  return { ok: true, binary: output, bytes: statSync(output).size, verified: native };
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (import.meta.main) {
  const target = flag("--target");
  if (target !== undefined && !RELEASE_TARGETS.includes(target)) {
    console.error(`compile: unknown --target; use one of ${RELEASE_TARGETS.join(", ")}`);
    process.exit(2);
  }
  const r = await compileBinary({ target, output: flag("--output") });
  if (!r.ok) {
    console.error(`compile: ${r.reason}`);
    process.exit(1);
  }
  console.log(
    `${r.binary} (${(r.bytes / 1048576).toFixed(1)} MiB${r.verified ? "" : ", not run"})`,
  );
}
