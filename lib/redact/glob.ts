/**
 * Name patterns that never match a name holding a protected value: whether `tok-Se*`
 * matches a file named after a value would tell, one character at a time, how the value
 * goes on. Such a file (or a folder, with everything below it) is left out of every
 * pattern's matches, whatever the pattern, so right and wrong guesses look the same.
 *
 * @module
 */

import type { CompiledGlob } from "../glob/pattern.ts";
import type { Protector } from "./types.ts";

/**
 * `glob`, refusing every name and path that holds a form of a protected value.
 *
 * @example
 * ```ts
 * import { compileGlob } from "../glob/pattern.ts";
 * import { Redactor } from "./redactor.ts";
 * import { protectGlob } from "./glob.ts";
 * const r = new Redactor();
 * r.add("tok-123456");
 * protectGlob(compileGlob("tok-*"), r).matchesPath("tok-123456.txt"); // false
 * ```
 */
export function protectGlob(glob: CompiledGlob, protect: Protector | undefined): CompiledGlob {
  if (!protect?.active) return glob;
  return {
    start: glob.start,
    basenameOnly: glob.basenameOnly,
    step: (state, name) => protect.leaks(name) ? [] : glob.step(state, name),
    matchesFile: (state, name) => !protect.leaks(name) && glob.matchesFile(state, name),
    matchesPath: (rel) => !protect.leaks(rel) && glob.matchesPath(rel),
  };
}
