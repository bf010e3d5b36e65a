/**
 * The main script of the Node single-executable build (`deno task build:sea`): it answers
 * `--version` at once, and otherwise runs the CLI bundle (scripts/sea_entry.ts, stored in
 * the binary as the asset `toolhost.cjs` with a V8 code cache made at build time). Keeping
 * the CLI out of the main script means `toolhost --version` costs what starting Node does.
 *
 * Node 20 runs a SEA's main script as CommonJS whose `require` loads built-in modules only;
 * the bundle needs nothing else, and is compiled with `node:vm` under the usual CommonJS
 * wrapper so it sees the same `require`, `module` and `exports`; its `main` then runs the
 * CLI. The build makes the bundle ASCII-only (scripts/ascii_bundle.ts), so it is read as
 * Latin-1: V8 takes it as a one-byte string, with no UTF-8 decoding of 2.5 MiB.
 *
 * @module
 */

import { VERSION } from "../lib/version.ts";

interface SeaModule {
  getRawAsset(key: string): ArrayBuffer;
}

function runBundle(): void {
  // `require` here is the SEA's: built-in modules only. Called through a variable so the
  // bundler leaves `node:sea` (which only exists inside a SEA) to run time.
  const builtin: (name: string) => unknown = require;
  const sea = builtin("node:sea") as SeaModule;
  const vm = builtin("node:vm") as typeof import("node:vm");
  const { Buffer } = builtin("node:buffer") as typeof import("node:buffer");
  const source = Buffer.from(sea.getRawAsset("toolhost.cjs")).toString("latin1");
  let cachedData: Uint8Array | undefined;
  try {
    cachedData = new Uint8Array(sea.getRawAsset("toolhost.cache"));
  } catch {
    cachedData = undefined; // built without a cache: V8 compiles from source
  }
  const script = new vm.Script(source, {
    filename: "toolhost.cjs",
    cachedData,
  });
  const wrapper = script.runInThisContext() as (
    exports: unknown,
    req: unknown,
    mod: unknown,
    filename: string,
    dirname: string,
  ) => void;
  const mod = { exports: {} as { main?: (argv: string[]) => Promise<number> } };
  wrapper(mod.exports, require, mod, "toolhost.cjs", ".");
  void mod.exports.main!(process.argv.slice(2)); // sets process.exitCode; never rejects
}

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  process.stdout.write(`${VERSION}\n`); // what the CLI prints, without loading it
} else {
  runBundle();
}
