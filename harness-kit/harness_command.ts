/**
 * How `testSession` runs a harness file. A `.ts` harness needs Deno: under Deno it runs
 * on that very binary (`process.execPath`), never a `deno` looked up on PATH; under
 * Node.js, which cannot run TypeScript, testSession refuses and says what to do. A
 * JavaScript harness is a Node.js program: under Node.js it runs on the same `node`
 * (`process.execPath`), under Deno on the `node` found on PATH, as toolhost's scaffolds
 * declare it.
 *
 * @module
 */

import process from "node:process";
import { basename, extname } from "node:path";
import { InvocationError } from "../lib/errors/errors.ts";

/** The runtime a test runs on. */
export interface TestRuntime {
  /** `"deno"` or `"node"`. */
  name: "deno" | "node";
  /** Absolute path of its executable. */
  execPath: string;
}

/**
 * The runtime this process runs on (Deno exposes `process.versions.deno`).
 *
 * @example
 * ```ts
 * import { currentRuntime } from "./harness_command.ts";
 * console.log(currentRuntime().name); // "deno" under Deno, "node" under Node.js
 * ```
 */
export function currentRuntime(): TestRuntime {
  const name = (process.versions as Record<string, string | undefined>).deno ? "deno" : "node";
  return { name, execPath: process.execPath };
}

/**
 * The command that runs `harness` for `role` (`start`, `stop` or an action) while the test
 * runs on `runtime` (default: this one): a `.ts` harness as `DENO run -A --no-config
 * --quiet HARNESS ROLE` with Deno's own path, a JavaScript one as `NODE HARNESS ROLE`
 * (this `node` under Node.js, `node` on PATH under Deno). Throws {@link InvocationError}
 * for a `.ts` harness under Node.js.
 *
 * @example
 * ```ts
 * import { harnessCommand } from "./harness_command.ts";
 * const c = harnessCommand("/abs/kv_harness.mjs", "start", { name: "node", execPath: "/usr/bin/node" });
 * console.log(c); // { command: "/usr/bin/node", args: ["/abs/kv_harness.mjs", "start"] }
 * ```
 */
export function harnessCommand(
  harness: string,
  role: string,
  runtime: TestRuntime = currentRuntime(),
): { command: string; args: string[] } {
  if (extname(harness) !== ".ts") {
    return { command: runtime.name === "node" ? runtime.execPath : "node", args: [harness, role] };
  }
  if (runtime.name === "deno") {
    return {
      command: runtime.execPath,
      args: ["run", "-A", "--no-config", "--quiet", harness, role],
    };
  }
  throw new InvocationError(
    `testSession: the harness ${basename(harness)} is TypeScript, which Node.js ` +
      `cannot run. Run the test under Deno (e.g. \`npx -y deno@2.9.6 test -A\`: the ` +
      `harness then runs on that same Deno), or write the harness in JavaScript (.mjs).`,
  );
}

/** Where, in the Artifact folder, {@link viaLauncher} writes its launcher script. */
export const LAUNCHER_PATH = ".harness-kit/runtime";

/**
 * A manifest command may not be an absolute path (only a name on PATH or a path in the
 * Artifact folder): a command with an absolute path runs through a launcher script in the
 * Artifact folder that `exec`s it. Returns the command to declare and, when needed, the
 * launcher file to write at {@link LAUNCHER_PATH} (mode 0755).
 *
 * @example
 * ```ts
 * import { viaLauncher } from "./harness_command.ts";
 * const v = viaLauncher({ command: "/opt/deno", args: ["run", "h.ts", "start"] });
 * console.log(v.command, v.launcher?.split("\n")[1]); // .harness-kit/runtime exec '/opt/deno' "$@"
 * ```
 */
export function viaLauncher(
  c: { command: string; args: string[] },
): { command: string; args: string[]; launcher?: string } {
  if (!c.command.startsWith("/")) return c;
  const quoted = `'${c.command.replace(/'/g, `'\\''`)}'`;
  return { command: LAUNCHER_PATH, args: c.args, launcher: `#!/bin/sh\nexec ${quoted} "$@"\n` };
}
