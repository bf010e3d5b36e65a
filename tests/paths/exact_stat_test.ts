import assert from "node:assert/strict";
import fs from "node:fs";
import {
  type ExactStats,
  fstatExact,
  identityKey,
  lstatExact,
  sameObject,
} from "../../lib/paths/exact_stat.ts";

Deno.test("exact stats: the same identity as BigInt stats, number or not", () => {
  const dir = Deno.makeTempDirSync();
  try {
    fs.writeFileSync(`${dir}/f`, "x");
    fs.writeFileSync(`${dir}/g`, "y");
    const st = lstatExact(`${dir}/f`)!;
    const big = fs.lstatSync(`${dir}/f`, { bigint: true });
    assert.equal(identityKey(st), `${big.dev}:${big.ino}`);
    assert.ok(sameObject(st, big));
    assert.ok(!sameObject(lstatExact(`${dir}/g`)!, big));
    const fd = fs.openSync(`${dir}/f`, "r");
    try {
      assert.ok(sameObject(fstatExact(fd), st));
      assert.ok(sameObject(fstatExact(fd, true), st)); // through /proc/self/fd under Deno
      assert.ok(fstatExact(fd, true).isFile());
    } finally {
      fs.closeSync(fd);
    }
    assert.equal(lstatExact(`${dir}/missing`), undefined);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("exact stats: numbers and BigInts compare by value, large ones too", () => {
  const num = { dev: 2049, ino: 2 ** 53 - 1 } as unknown as ExactStats;
  const big = { dev: 2049n, ino: 2n ** 53n - 1n } as unknown as ExactStats;
  const bigger = { dev: 2049n, ino: 2n ** 53n + 1n } as unknown as ExactStats;
  assert.ok(sameObject(num, big));
  assert.ok(!sameObject(num, bigger));
  assert.ok(!sameObject(big, bigger));
});
