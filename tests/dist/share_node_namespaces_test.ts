/**
 * scripts/share_node_namespaces.ts: the bundler's `__toESM(require("node:…"))` calls share
 * one namespace object per built-in — found by the helper's definition, minified or not —
 * the code computes the same values, and calls of any other function are left alone.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { shareNodeNamespaces } from "../../scripts/share_node_namespaces.ts";

const MINIFIED = "var c=Object.create,d=Object.defineProperty,g=Object.getPrototypeOf," +
  "o=Object.getOwnPropertyNames,h=Object.prototype.hasOwnProperty;" +
  "var p=(t,e)=>{for(let k of o(e))!h.call(t,k)&&d(t,k,{get:()=>e[k],enumerable:!0});return t};" +
  'var M=(t,e,r)=>(r=t!=null?c(g(t)):{},p(1 ?d(r,"default",{value:t,enumerable:!0}):r,t));' +
  "var W=(x)=>({wrapped:x});";

const UNMINIFIED = "var __create = Object.create;\nvar __defProp = Object.defineProperty;\n" +
  "var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(" +
  'Object.getPrototypeOf(mod)) : {}, __defProp(target, "default", { value: mod, enumerable: ' +
  "true }));\n";

/** Run `body` (CommonJS, with `require`) and return its `result`. */
function run(source: string): Record<string, unknown> {
  const require = createRequire(import.meta.url);
  return new Function("require", `${source}; return result;`)(require);
}

Deno.test("minified: every import of a built-in shares one namespace, values unchanged", () => {
  const body = MINIFIED + 'var a=M(require("node:path")),b=M(require("node:path")),' +
    'f=M(require("node:fs")),w=W(require("node:path"));' +
    "var result={same:a===b,join:a.default.join('x','y'),named:a.sep,fs:typeof f.default.readFileSync," +
    "wrapped:w.wrapped===require('node:path')};";
  const before = run(body);
  const { source, shared } = shareNodeNamespaces(body);
  assert.equal(shared, 3);
  const after = run(source);
  assert.deepEqual({ ...after, same: before.same }, before);
  assert.equal(before.same, false);
  assert.equal(after.same, true);
  assert.ok(source.includes('W(require("node:path"))'), "another function's call is kept");
});

Deno.test("unminified: the helper is found by its definition", () => {
  const body = UNMINIFIED + 'var p = __toESM(require("node:path"));\n' +
    "var result = { sep: p.default.sep };";
  const { source, shared } = shareNodeNamespaces(body);
  assert.equal(shared, 1);
  assert.deepEqual(run(source), run(body));
});

Deno.test("a directive stays first; no helper or an ambiguous one changes nothing", () => {
  const strict = '"use strict";' + MINIFIED +
    'var a=M(require("node:path"));var result={s:a.default.sep};';
  const out = shareNodeNamespaces(strict);
  assert.equal(out.shared, 1);
  assert.ok(out.source.startsWith('"use strict";var __thNodeNs'));
  assert.deepEqual(run(out.source), run(strict));
  const none = 'var a=W(require("node:path"));';
  assert.deepEqual(shareNodeNamespaces(none), { source: none, shared: 0 });
});
