/**
 * The `#!` interpreter a confined script needs, so the sandbox can show it: a script
 * whose first line is `#!/usr/bin/env node` finds `node` on `PATH` — which may live
 * outside the system folders (nvm, asdf, a package manager's prefix). Only that one
 * file is bound (read-only), never its folder.
 *
 * @module
 */

import fs from "node:fs";
import path from "node:path";
import { parseShebang } from "../check/interpreter.ts";

const HEAD_BYTES = 256;

function head(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    if (!fs.fstatSync(fd).isFile()) return undefined;
    const buf = new Uint8Array(HEAD_BYTES);
    const n = fs.readSync(fd, buf, 0, HEAD_BYTES, 0);
    return new TextDecoder().decode(buf.subarray(0, n));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The absolute path of `program`'s `#!` interpreter (looked up on `pathVar` for
 * `#!/usr/bin/env NAME`), or undefined when it has none or it cannot be found.
 *
 * @example
 * ```ts
 * import { interpreterPath } from "./interpreter_path.ts";
 * interpreterPath("/bin/sh", "/usr/bin:/bin"); // undefined (a binary)
 * ```
 */
export function interpreterPath(program: string, pathVar: string | undefined): string | undefined {
  const text = head(program);
  const sb = text === undefined ? undefined : parseShebang(text);
  if (sb === undefined) return undefined;
  if (!sb.onPath) {
    const abs = path.resolve(path.dirname(program), sb.program);
    return executable(abs) ? abs : undefined;
  }
  for (const dir of (pathVar ?? "").split(path.delimiter)) {
    if (dir === "" || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, sb.program);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}
