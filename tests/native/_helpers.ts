/**
 * Helpers for native-tool tests: a native environment over a temporary tree, admission of
 * arguments against a native tool's published schema, snapshots of whole trees.
 *
 * @module
 */

import fs from "node:fs";
import path from "node:path";
import { admitArgs } from "../../lib/schema/admit_args.ts";
import { compileSchema } from "../../lib/schema/compile_schema.ts";
import type { ArtifactView } from "../../lib/builtins/context.ts";
import type { NativeEnv } from "../../lib/native/context.ts";
import { runNative } from "../../lib/native/run.ts";
import { NATIVE_SPECS, type NativeName } from "../../lib/native/specs.ts";
import type { ToolResult } from "../../lib/results/types.ts";
import { env, folderView } from "../builtins/helpers.ts";

export {
  err,
  fileView,
  folderView,
  makeTree,
  noPhysical,
  ok,
  writeTree,
} from "../builtins/helpers.ts";
export type { Json, Tree } from "../builtins/helpers.ts";

/** The author environment the tests run with. */
export const BASE_ENV: Record<string, string> = {
  PATH: Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin",
  HOME: Deno.env.get("HOME") ?? "/",
  NOT_FOR_TOOLS: "base-only",
};

/**
 * A native environment for a declaring view (state dir under `stateDir`).
 *
 * @example
 * ```ts
 * const e = nativeEnv(folderView("app", "/tmp/x/app"), "/tmp/x/state");
 * ```
 */
export function nativeEnv(
  declaring: ArtifactView,
  stateDir: string,
  extra: Partial<NativeEnv> = {},
  descendants: Record<string, { view: ArtifactView; admitted: boolean }> = {},
): NativeEnv {
  return {
    ...env(declaring, descendants),
    stateDir,
    baseEnv: BASE_ENV,
    grantedEnv: {},
    ...extra,
  };
}

/**
 * Admit `args` against the tool's published schema (throws InvalidArguments), then run it.
 *
 * @example
 * ```ts
 * // const r = await call("files_read", { path: "a.txt" }, e);
 * ```
 */
export function call(
  name: NativeName,
  args: Record<string, unknown>,
  e: NativeEnv,
): Promise<ToolResult> {
  const admitted = admitArgs(args, compileSchema(NATIVE_SPECS[name].modelSchema));
  return runNative(name, admitted, e);
}

/**
 * Does the tool's schema admit `args`?
 *
 * @example
 * ```ts
 * admits("files_read", { path: "a", maxBytes: 1 }); // true
 * ```
 */
export function admits(name: NativeName, args: Record<string, unknown>): boolean {
  try {
    admitArgs(args, compileSchema(NATIVE_SPECS[name].modelSchema));
    return true;
  } catch {
    return false;
  }
}

/**
 * Every entry below `root` with its kind and content/target (a full snapshot).
 *
 * @example
 * ```ts
 * // assert.deepEqual(snapshot(outer), before);
 * ```
 */
export function snapshot(
  root: string,
  skip: (rel: string) => boolean = () => false,
): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of fs.readdirSync(path.join(root, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      if (skip(r)) continue;
      const st = fs.lstatSync(path.join(root, r));
      if (st.isSymbolicLink()) out[r] = `link:${fs.readlinkSync(path.join(root, r))}`;
      else if (st.isDirectory()) {
        out[r] = "dir";
        walk(r);
      } else out[r] = `file:${st.ino}:${fs.readFileSync(path.join(root, r), "latin1")}`;
    }
  };
  walk("");
  return out;
}

/** A temporary tree with an Artifact folder and its native environment. */
export interface AppTree {
  /** The temporary root. */
  root: string;
  /** The Artifact folder `<root>/app`. */
  app: string;
  /** The state dir `<root>/state`. */
  state: string;
  /** A native environment declaring `app`. */
  e: NativeEnv;
  /** Remove everything. */
  rm: () => void;
}

/**
 * A temporary tree with an Artifact folder `app` and a state dir beside it.
 *
 * @example
 * ```ts
 * const t = appTree({ "a.txt": "x" });
 * t.rm();
 * ```
 */
export function appTree(
  files: Record<string, string | Uint8Array | { symlink: string } | { dir: true }> = {},
): AppTree {
  const root = fs.realpathSync(Deno.makeTempDirSync({ prefix: "toolhost-native-" }));
  const app = path.join(root, "app");
  fs.mkdirSync(app);
  for (const [rel, spec] of Object.entries(files)) {
    const p = path.join(app, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    if (typeof spec === "string" || spec instanceof Uint8Array) fs.writeFileSync(p, spec);
    else if ("symlink" in spec) fs.symlinkSync(spec.symlink, p);
    else fs.mkdirSync(p, { recursive: true });
  }
  const state = path.join(root, "state");
  return {
    root,
    app,
    state,
    e: nativeEnv(folderView("app", app), state),
    rm: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}
