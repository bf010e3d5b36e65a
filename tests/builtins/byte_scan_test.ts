import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { fileURLToPath } from "node:url";
import { createByteScanner, type ScanLiteral, withByteScanner } from "../../lib/grep/byte_scan.ts";
import { SCAN_WASM_BASE64 } from "../../lib/grep/scan_wasm.ts";

function fold(text: string): ScanLiteral {
  const bytes = Buffer.from(text);
  const mask = bytes.map((b) => (/[a-zA-Z]/.test(String.fromCharCode(b)) ? 0x20 : 0));
  return { bytes: bytes.map((b, i) => b | mask[i]), mask };
}

Deno.test("SIMD and JavaScript scanners agree on random data", () => {
  const simd = createByteScanner();
  const js = createByteScanner({ forceJs: true });
  assert.equal(simd.simd, true);
  assert.equal(js.simd, false);
  let seed = 99;
  const rand = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
  const len = 5000;
  const src = new Uint8Array(len).map(() => "abAB\n\0x".charCodeAt(rand(7)));
  for (const s of [simd, js]) s.reserve(len).set(src);
  const lits: ScanLiteral[] = [
    { bytes: Buffer.from("ab"), mask: null },
    { bytes: Buffer.from("a"), mask: null },
    { bytes: Buffer.from("bA\nx"), mask: null },
    fold("abab"),
    fold("b"),
  ];
  simd.setLiterals(lits);
  js.setLiterals(lits);
  for (let i = 0; i < 3000; i++) {
    const a = rand(len);
    const b = a + rand(len - a + 1);
    const byte = "abAB\n\0x".charCodeAt(rand(7));
    assert.equal(simd.count(a, b, byte), js.count(a, b, byte));
    assert.equal(simd.find(a, b, byte), js.find(a, b, byte));
    assert.equal(simd.findLast(a, b, byte), js.findLast(a, b, byte));
    const w = rand(lits.length);
    assert.equal(simd.findLiteral(w, a, b), js.findLiteral(w, a, b), `literal ${w} ${a}-${b}`);
  }
});

Deno.test("the working area grows and keeps offsets", () => {
  const s = createByteScanner();
  s.reserve(10).set([1, 10, 2]);
  const big = s.reserve(9 * 1024 * 1024);
  big[9 * 1024 * 1024 - 1] = 10;
  assert.equal(s.count(0, 9 * 1024 * 1024, 10), 2);
  assert.equal(s.findLast(0, 9 * 1024 * 1024, 10), 9 * 1024 * 1024 - 1);
  assert.equal(s.find(0, 0, 10), -1);
  assert.equal(s.count(5, 5, 10), 0);
});

Deno.test("the embedded module matches scan.wat (when wat2wasm is installed)", async () => {
  const wat = fileURLToPath(new URL("../../lib/grep/scan.wat", import.meta.url));
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command("wat2wasm", { args: [wat, "-o", "/dev/stdout"] }).output();
  } catch {
    return; // wat2wasm not installed: nothing to compare
  }
  assert.equal(out.code, 0);
  assert.equal(Buffer.from(out.stdout).toString("base64"), SCAN_WASM_BASE64);
});

Deno.test("withByteScanner: a synchronous use gives its scanner back at once", async () => {
  // Pipelined calls start in the same tick; each must not instantiate its own module.
  const seen = new Set<unknown>();
  const counts = await Promise.all(
    Array.from({ length: 20 }, () =>
      withByteScanner((s) => {
        seen.add(s);
        const data = s.reserve(2);
        data.set([10, 10]);
        return s.count(0, 2, 10);
      })),
  );
  assert.deepEqual(counts, new Array(20).fill(2));
  assert.equal(seen.size, 1);
  // A use that awaits keeps its scanner until it settles; a concurrent one gets another.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const seenAsync: unknown[] = [];
  const first = withByteScanner(async (s) => {
    seenAsync.push(s);
    await held;
  });
  await withByteScanner((s) => seenAsync.push(s));
  release();
  await first;
  assert.notEqual(seenAsync[0], seenAsync[1]);
  await assert.rejects(
    withByteScanner(() => {
      throw new Error("boom");
    }),
    /boom/,
  );
});
