/**
 * One namespace object per Node built-in in the single executable's CLI bundle.
 *
 * The bundler turns each default or namespace import of a built-in (`import fs from
 * "node:fs"`, `import process from "node:process"`) into `__toESM(require("node:fs"))`:
 * a fresh object with a getter for every export of the module (about a hundred for `fs`
 * and `process`), made when each importing module initializes — some 70 of them in the
 * CLI. The code reads only `.default` (the module itself) or a named export through it,
 * and an ES module namespace cannot be written to; in ES modules proper, every importer
 * of a module gets the same namespace object. So one object per built-in serves every
 * importer. Copying the getters each time cost `serve` ~15M of its ~200M own
 * instructions to the first `tools/list` (cachegrind), much of it because the copying
 * loop became hot enough for V8 to optimize it on a worker thread.
 *
 * The bundle is minified, so the helper is found by its calls — `NAME(require("node:…"))`
 * — and its definition, which must be the bundler's `__toESM` (it sets `"default"` to
 * `{ value: module }`); calls of anything else are left alone.
 *
 * @module
 */

/** A call of a one-argument function on a built-in's `require`. */
const CALL = /([A-Za-z_$][\w$]*)\(require\("((?:node:)?[a-z0-9_/]+)"\)\)/g;
/** The shared-namespace helper's name (checked to be unused). */
const SHARED = "__thNodeNs";

function escapeRegExp(s: string): string {
  return s.replace(/[$]/g, "\\$&");
}

/** Whether `name` is defined as the bundler's `__toESM` (minified or not). */
function isToEsm(source: string, name: string): boolean {
  const def = new RegExp(`(?:^|[^\\w$.])${escapeRegExp(name)}\\s*=\\s*\\(`, "g");
  for (let m = def.exec(source); m !== null; m = def.exec(source)) {
    const body = source.slice(m.index, m.index + 300);
    if (/"default",\s*\{\s*value:/.test(body)) return true;
  }
  return false;
}

/**
 * `source` (a CommonJS bundle) with every `__toESM(require("node:…"))` made to share one
 * object per built-in; `shared` counts the rewritten calls (0: returned unchanged).
 *
 * @example
 * ```ts
 * import { shareNodeNamespaces } from "./share_node_namespaces.ts";
 * const src = 'var M=(t,e,r)=>(r={},D(r,"default",{value:t}));var fs=M(require("node:fs"));';
 * shareNodeNamespaces(src).shared; // 1
 * ```
 */
export function shareNodeNamespaces(source: string): { source: string; shared: number } {
  if (source.includes(SHARED)) return { source, shared: 0 };
  const names = new Set<string>();
  for (const m of source.matchAll(CALL)) names.add(m[1]);
  const helper = [...names].filter((n) => isToEsm(source, n));
  if (helper.length !== 1) return { source, shared: 0 };
  const toEsm = helper[0];
  let shared = 0;
  const rewritten = source.replace(CALL, (call, name: string, module: string) => {
    if (name !== toEsm) return call;
    shared++;
    return `${SHARED}(${JSON.stringify(module)})`;
  });
  // Defined first (before any directive-free code runs); `toEsm` is a hoisted `var`
  // assigned before any module initializes.
  const define = `var ${SHARED}Map=new Map(),${SHARED}=n=>{let s=${SHARED}Map.get(n);` +
    `return s===void 0&&${SHARED}Map.set(n,s=${toEsm}(require(n))),s};\n`;
  const directive = /^(["'])use strict\1;?/.exec(rewritten);
  const at = directive === null ? 0 : directive[0].length;
  return { source: rewritten.slice(0, at) + define + rewritten.slice(at), shared };
}
