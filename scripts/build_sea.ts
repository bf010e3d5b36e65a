/**
 * Build `dist/bin/toolhost-sea`: the toolhost CLI as a Node single-executable application
 * (SEA), a standalone binary that needs neither Deno nor Node on the machine that runs it.
 * It exists because `deno compile` needs Deno's `denort` runtime, which these build
 * machines cannot download; the SEA is built and tested end to end here instead.
 *
 * Steps: `deno bundle --platform node --format cjs` bundles scripts/sea_entry.ts with every
 * dependency (the same import map and deno.lock as `deno run`/`deno compile`, so no
 * node_modules and no second resolver), and the small launcher scripts/sea_launcher.ts;
 * the CLI bundle's imports of Node built-ins share one namespace object each
 * (scripts/share_node_namespaces.ts) and it is made ASCII-only (scripts/ascii_bundle.ts:
 * V8 then keeps its source as one byte per character); the same `node` makes a V8 code cache of it after running its
 * start-up paths (scripts/sea_code_cache.ts); `node --experimental-sea-config`
 * turns the launcher into a SEA blob (with its code cache) carrying the CLI bundle and its
 * cache as assets, so `--version` never compiles the CLI; `postject` (npm, pinned in
 * deno.json) injects the blob into a copy of the `node` binary (`NODE_BIN`, else `node` on
 * PATH, Node >= 20.12 for assets). The result is then run (`--version`, `--help`) to prove
 * it starts as toolhost.
 *
 * An unchanged bundle reuses the existing binary (the injection is the slow step);
 * `--force` rebuilds. Run with `deno task build:sea`.
 *
 * @module
 */

import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { inject } from "postject";
import { asciiBundle } from "./ascii_bundle.ts";
import { makeCodeCache } from "./sea_code_cache.ts";
import { shareNodeNamespaces } from "./share_node_namespaces.ts";
import { wrapBundle } from "./sea_wrapper.ts";

/** The repository root. */
export const ROOT: string = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SENTINEL = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/** Options of {@linkcode buildSea}. */
export interface BuildSeaOptions {
  /** Where the binary goes. Default `<repo>/dist/bin/toolhost-sea` (`.exe` on Windows). */
  output?: string;
  /** Work folder for the bundle, blob and config. Default `<repo>/dist/sea`. */
  workDir?: string;
  /** Rebuild even when the bundle is unchanged. Default false. */
  force?: boolean;
  /** The node binary to copy. Default `NODE_BIN`, else `node` on PATH. */
  nodeBin?: string;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

/** What {@linkcode buildSea} produced. */
export interface BuiltSea {
  /** Absolute path of the binary. */
  binary: string;
  /** Size of the binary in bytes. */
  bytes: number;
  /** Size of the JavaScript bundle in bytes. */
  bundleBytes: number;
  /** False when an unchanged bundle reused the existing binary. */
  rebuilt: boolean;
}

/** The default output path of the SEA binary. */
export function defaultSeaPath(): string {
  return join(
    ROOT,
    "dist",
    "bin",
    process.platform === "win32" ? "toolhost-sea.exe" : "toolhost-sea",
  );
}

/**
 * Bundle the CLI (or, with `entry`, another script of scripts/) for Node as one CommonJS
 * file (every dependency inlined: a SEA cannot load files or packages at run time).
 *
 * @example
 * ```ts
 * import { bundleCli } from "./build_sea.ts";
 * bundleCli("/tmp/toolhost.cjs");
 * ```
 */
export function bundleCli(outFile: string, entry = "sea_entry.ts"): void {
  execFileSync(process.execPath, [
    "bundle",
    "--quiet",
    "--platform",
    "node",
    "--format",
    "cjs",
    "--packages",
    "bundle",
    // Half the bytes (2.5 -> 1.2 MiB): the launcher copies the source into V8 and the
    // binary's pages of it are read at every start (measured: ~1,000 fewer page faults
    // per `tools check`/`serve`). Names are not kept: nothing reads a function's name.
    "--minify",
    "-o",
    outFile,
    join(ROOT, "scripts", entry),
  ], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
}

/**
 * The absolute path and version of the node binary to copy; throws when it is older than
 * Node 20 or lacks the SEA fuse.
 *
 * @example
 * ```ts
 * import { findNode } from "./build_sea.ts";
 * const { path, version } = findNode();
 * ```
 */
export function findNode(nodeBin?: string): { path: string; version: string } {
  const bin = nodeBin ?? process.env.NODE_BIN ?? "node";
  const [path, version] = execFileSync(bin, ["-p", "process.execPath + '\\n' + process.version"], {
    encoding: "utf8",
  }).trim().split("\n");
  if (Number(/^v(\d+)/.exec(version)?.[1] ?? 0) < 20) {
    throw new Error(`Node >= 20 is needed for a single-executable build (found ${version})`);
  }
  if (!readFileSync(path).includes(SENTINEL)) {
    throw new Error("this node binary was built without single-executable support");
  }
  return { path, version };
}

function sameFile(a: string, b: string): boolean {
  return existsSync(a) && existsSync(b) && readFileSync(a).equals(readFileSync(b));
}

async function injectBlob(binary: string, blob: string): Promise<void> {
  const mac = process.platform === "darwin";
  if (mac) execFileSync("codesign", ["--remove-signature", binary]);
  // postject's wasm reports harmless ELF notes ("Can't find string offset ...") on the
  // console; keep them out of build and test logs. Failures still throw.
  const saved = { log: console.log, warn: console.warn, error: console.error };
  const quiet = (...a: unknown[]) => void a;
  Object.assign(console, { log: quiet, warn: quiet, error: quiet });
  try {
    await inject(binary, "NODE_SEA_BLOB", readFileSync(blob), {
      sentinelFuse: SENTINEL,
      machoSegmentName: mac ? "NODE_SEA" : undefined,
    });
  } finally {
    Object.assign(console, saved);
  }
  if (mac) execFileSync("codesign", ["--sign", "-", binary]);
}

/**
 * Make the blob from `launcher` (main) and `bundle` (asset, with a code cache made by the
 * same node) and inject it into a copy of node at `output` (atomically).
 */
async function assemble(
  node: { path: string; version: string },
  bundle: string,
  launcher: string,
  output: string,
  log: (line: string) => void,
): Promise<void> {
  const tag = `${process.pid}`;
  const blob = `${bundle}.${tag}.blob`;
  const config = `${bundle}.${tag}.json`;
  const cache = `${bundle}.${tag}.cache`;
  const tmp = `${output}.${tag}.tmp`;
  const wrapped = `${bundle}.${tag}.wrapped`;
  try {
    log("making the CLI bundle's V8 code cache (after running its start-up paths)");
    await makeCodeCache(node.path, bundle, cache, { root: ROOT, log });
    // The asset is the bundle already in its wrapper: the launcher compiles it as read,
    // with no 2.5 MiB concatenation for V8 to flatten into a copy.
    writeFileSync(wrapped, wrapBundle(readFileSync(bundle, "latin1")), "latin1");
    writeFileSync(
      config,
      JSON.stringify({
        main: launcher,
        output: blob,
        disableExperimentalSEAWarning: true,
        useCodeCache: true,
        assets: { "toolhost.cjs": wrapped, "toolhost.cache": cache },
      }),
    );
    log(`making the SEA blob (node ${node.version})`);
    execFileSync(node.path, ["--experimental-sea-config", config], { stdio: "ignore" });
    copyFileSync(node.path, tmp);
    log("injecting the blob into a copy of node (postject)");
    await injectBlob(tmp, blob);
    renameSync(tmp, output); // atomic: a binary being run elsewhere is never half-written
  } finally {
    for (const f of [blob, config, cache, tmp, wrapped]) rmSync(f, { force: true });
  }
}

/**
 * Build (or reuse) the SEA binary and check that it starts as toolhost. Concurrent builds
 * use their own temporary files, and the binary is replaced by a rename.
 *
 * @example
 * ```ts
 * import { buildSea } from "./build_sea.ts";
 * const { binary, bytes } = await buildSea({ log: console.log });
 * ```
 */
export async function buildSea(options: BuildSeaOptions = {}): Promise<BuiltSea> {
  const log = options.log ?? (() => {});
  const output = resolve(options.output ?? defaultSeaPath());
  const work = resolve(options.workDir ?? join(ROOT, "dist", "sea"));
  mkdirSync(work, { recursive: true });
  mkdirSync(dirname(output), { recursive: true });
  const node = findNode(options.nodeBin);
  const bundle = join(work, "toolhost.cjs");
  const fresh = join(work, `toolhost.${process.pid}.cjs`);
  const launcher = join(work, "launcher.cjs");
  const freshLauncher = join(work, `launcher.${process.pid}.cjs`);
  const stamp = join(work, "node-version.txt");
  const nodeId = `${node.path}\n${node.version}`;
  log("bundling the CLI for Node (deno bundle)");
  try {
    bundleCli(fresh);
    // One namespace object per Node built-in (see share_node_namespaces.ts), and one-byte
    // source for V8 (see ascii_bundle.ts): the launcher reads it as Latin-1.
    const shared = shareNodeNamespaces(readFileSync(fresh, "utf8"));
    log(`one namespace object per Node built-in: ${shared.shared} imports share them`);
    writeFileSync(fresh, asciiBundle(shared.source));
    bundleCli(freshLauncher, "sea_launcher.ts");
    const bundleBytes = readFileSync(fresh).byteLength;
    const unchanged = !options.force && sameFile(fresh, bundle) &&
      sameFile(freshLauncher, launcher) && existsSync(output) && existsSync(stamp) &&
      readFileSync(stamp, "utf8") === nodeId;
    if (unchanged) {
      log("bundle unchanged: reusing the existing binary");
    } else {
      await assemble(node, fresh, freshLauncher, output, log);
      renameSync(fresh, bundle);
      renameSync(freshLauncher, launcher);
      writeFileSync(stamp, nodeId);
    }
    verify(output);
    return { binary: output, bytes: statSync(output).size, bundleBytes, rebuilt: !unchanged };
  } finally {
    rmSync(fresh, { force: true });
    rmSync(freshLauncher, { force: true });
  }
}

function verify(binary: string): void {
  const deno = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")) as { version: string };
  const got = execFileSync(binary, ["--version"], {
    encoding: "utf8",
    env: { PATH: "/nonexistent" },
  })
    .trim();
  if (got !== deno.version) {
    throw new Error(`the SEA binary printed version "${got}", expected "${deno.version}"`);
  }
  // --version is answered by the launcher alone; --help proves the CLI bundle loads.
  const help = execFileSync(binary, ["--help"], {
    encoding: "utf8",
    env: { PATH: "/nonexistent" },
  });
  if (!help.startsWith("Usage: toolhost")) {
    throw new Error("the SEA binary's --help did not print toolhost's usage");
  }
}

if (import.meta.main) {
  const force = process.argv.includes("--force");
  const out = await buildSea({ force, log: (l) => console.error(`build:sea: ${l}`) });
  const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
  console.log(
    `${out.binary} (${mib(out.bytes)}; bundle ${mib(out.bundleBytes)}${
      out.rebuilt ? "" : ", reused"
    })`,
  );
}
