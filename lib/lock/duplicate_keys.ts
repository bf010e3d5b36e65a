/**
 * Finding a key given twice in one object of a JSON text. `JSON.parse` keeps the last
 * one silently, while whoever reviews `toolhost.lock` (or its diff) may take the first for
 * what is locked: a lock must say one thing. One linear pass with an explicit stack (no
 * recursion, so any depth is safe); keys are compared decoded, so `"\u0061"` and `"a"`
 * are the same key, as `JSON.parse` takes them.
 *
 * @module
 */

/**
 * The first key that appears twice in one object of `text` (already valid JSON), with
 * the nesting depth of that object; undefined when every object's keys are distinct.
 *
 * @example
 * ```ts
 * import { duplicateKey } from "./duplicate_keys.ts";
 * duplicateKey('{"a":1,"b":{"a":2}}'); // undefined
 * duplicateKey('{"a":1,"\\u0061":2}'); // { key: "a", depth: 1 }
 * ```
 */
export function duplicateKey(text: string): { key: string; depth: number } | undefined {
  const stack: (Set<string> | undefined)[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */) stack.push(new Set());
    else if (c === 0x5b /* [ */) stack.push(undefined);
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) stack.pop();
    else if (c === 0x22 /* " */) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x22) break;
        if (d === 0x5c /* \ */) [escaped, i] = [true, i + 1]; // the escaped character too
      }
      const keys = stack[stack.length - 1];
      if (keys === undefined || !isKey(text, i + 1)) continue;
      const raw = text.slice(start, i + 1);
      const key = escaped ? JSON.parse(raw) as string : raw.slice(1, -1);
      if (keys.has(key)) return { key, depth: stack.length };
      keys.add(key);
    }
  }
  return undefined;
}

/** Whether the string ending before `i` is a key: the next non-space character is `:`. */
function isKey(text: string, i: number): boolean {
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    return c === 0x3a /* : */;
  }
  return false;
}
