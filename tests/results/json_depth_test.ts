import assert from "node:assert/strict";
import { nestingWithin } from "../../lib/results/json_depth.ts";

Deno.test("nestingWithin: at, below and above the bound; any depth is safe to ask", () => {
  const nest = (d: number) => JSON.parse("[".repeat(d) + "]".repeat(d));
  assert.equal(nestingWithin(1, 0), true);
  assert.equal(nestingWithin({}, 0), false);
  assert.equal(nestingWithin(nest(127), 128), true);
  assert.equal(nestingWithin(nest(128), 128), true);
  assert.equal(nestingWithin(nest(129), 128), false);
  assert.equal(nestingWithin({ a: [1, { b: [2] }] }, 4), true);
  assert.equal(nestingWithin({ a: [1, { b: [2] }] }, 3), false);
  assert.equal(nestingWithin(nest(100_000), 128), false); // no stack overflow
});
