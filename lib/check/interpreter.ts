/**
 * A script's `#!` interpreter, resolved statically: `#!/usr/bin/env X` and
 * `#!/usr/bin/env -S X ...` need X on PATH; an absolute interpreter must exist and be
 * executable. A script whose interpreter is missing exits 127 at every call, so
 * `tools check` reports it as not ready, naming the interpreter.
 *
 * @module
 */

import fs from "node:fs";
import path from "node:path";
import { showPath } from "../paths/show_path.ts";

/** Bytes of a file the kernel reads for its `#!` line (Linux BINPRM_BUF_SIZE). */
const SHEBANG_BYTES = 256;

/** The interpreter a `#!` line asks for. */
export interface Shebang {
  /** The interpreter program (`/bin/sh`, or X of `/usr/bin/env X`). */
  program: string;
  /** Whether it is looked up on PATH (through env). */
  onPath: boolean;
}

/**
 * Parse the first line of a file. Returns undefined when it is not a `#!` line (a binary,
 * a script run by its caller) or names nothing.
 *
 * @example
 * ```ts
 * import { parseShebang } from "./interpreter.ts";
 * parseShebang("#!/usr/bin/env -S deno run -A\n"); // { program: "deno", onPath: true }
 * parseShebang("#!/bin/sh\n"); // { program: "/bin/sh", onPath: false }
 * ```
 */
export function parseShebang(head: string): Shebang | undefined {
  if (!head.startsWith("#!")) return undefined;
  const line = head.slice(2).split("\n")[0].replace(/\r$/, "");
  const [interp, ...rest] = line.trim().split(/[ \t]+/);
  if (!interp) return undefined;
  if (path.basename(interp) !== "env") return { program: interp, onPath: false };
  // Linux passes everything after the interpreter as one argument; env -S splits it.
  let words = rest;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === "-S" || w === "--split-string") continue;
    if (w.startsWith("-S")) {
      words = [w.slice(2), ...words.slice(i + 1)];
      i = -1;
      continue;
    }
    if (w === "-u" || w === "--unset" || w === "-C" || w === "--chdir") {
      i++;
      continue;
    }
    if (w.startsWith("-") || w.includes("=")) continue; // -i, --ignore-environment, A=b
    return { program: w, onPath: !w.includes("/") };
  }
  return undefined;
}

function readHead(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    if (!fs.fstatSync(fd).isFile()) return undefined;
    const buf = new Uint8Array(SHEBANG_BYTES);
    const n = fs.readSync(fd, buf, 0, SHEBANG_BYTES, 0);
    return new TextDecoder().decode(buf.subarray(0, n));
  } catch {
    return undefined; // unreadable: the executable check already passed; nothing to add
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(program: string, env: Record<string, string | undefined>): boolean {
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (dir !== "" && path.isAbsolute(dir) && isExecutableFile(path.join(dir, program))) {
      return true;
    }
  }
  return false;
}

/**
 * Why the `#!` interpreter of an (already resolved, executable) program cannot run, or
 * undefined when it can or the file has no `#!` line. The interpreter is named, escaped.
 *
 * @example
 * ```ts
 * import { interpreterProblem } from "./interpreter.ts";
 * interpreterProblem("/bin/sh", { PATH: "/usr/bin:/bin" }); // undefined (a binary)
 * ```
 */
export function interpreterProblem(
  program: string,
  env: Record<string, string | undefined>,
): string | undefined {
  const head = readHead(program);
  const sb = head === undefined ? undefined : parseShebang(head);
  if (sb === undefined) return undefined;
  const shown = showPath(sb.program);
  if (sb.onPath) {
    return onPath(sb.program, env)
      ? undefined
      : `its \`#!\` interpreter ${shown} was not found on PATH`;
  }
  const abs = path.resolve(path.dirname(program), sb.program);
  return isExecutableFile(abs)
    ? undefined
    : `its \`#!\` interpreter ${shown} is missing or not executable`;
}
