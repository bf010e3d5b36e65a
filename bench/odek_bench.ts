/**
 * Benchmark: validating an odek artifact ref with `sha256` over a 64 MiB file, against
 * `sha256sum` on the same file (goal: ratio ≤ 1.5×). Run standalone with
 * `deno run -A bench/odek_bench.ts`.
 *
 * @module
 */

import { execFile } from "node:child_process";
import { randomFillSync } from "node:crypto";
import { promises as fsp } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { MAX_ARTIFACT_BYTES, SCHEMA_ARTIFACT_REF, validateArtifactRef } from "../lib/odek/mod.ts";

const run = promisify(execFile);
const ROUNDS = 7;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function sha256sum(path: string): Promise<string> {
  const { stdout } = await run("sha256sum", [path], { maxBuffer: 1 << 20 });
  return stdout.slice(0, 64);
}

async function writeRandomFile(path: string, size: number): Promise<void> {
  const fh = await fsp.open(path, "w");
  try {
    const chunk = new Uint8Array(4 * 1024 * 1024);
    for (let left = size; left > 0; left -= chunk.length) {
      randomFillSync(chunk);
      await fh.write(chunk, 0, Math.min(chunk.length, left));
    }
  } finally {
    await fh.close();
  }
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/**
 * Run the benchmark and return the lines it prints.
 *
 * @example
 * ```ts
 * import { benchOdek } from "./odek_bench.ts";
 * for (const line of await benchOdek()) console.log(line);
 * ```
 */
export async function benchOdek(): Promise<string[]> {
  const dir = await fsp.realpath(await fsp.mkdtemp(join(tmpdir(), "odek_bench_")));
  try {
    const file = join(dir, "artifact.bin");
    await writeRandomFile(file, MAX_ARTIFACT_BYTES);
    const sha256 = await sha256sum(file);
    const ref = {
      schema: SCHEMA_ARTIFACT_REF,
      id: "bench",
      uri: `file://${file}`,
      media_type: "application/octet-stream",
      size_bytes: MAX_ARTIFACT_BYTES,
      sha256,
    };
    await validateArtifactRef(ref, [dir]); // warm-up (page cache, JIT)
    const ours: number[] = [];
    const anchor: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      ours.push(await timed(() => validateArtifactRef(ref, [dir])));
      anchor.push(await timed(() => sha256sum(file)));
    }
    const a = median(ours);
    const b = median(anchor);
    const mib = MAX_ARTIFACT_BYTES / (1024 * 1024);
    return [
      `odek validate (sha256, ${mib} MiB): median ${a.toFixed(1)} ms over ${ROUNDS} rounds`,
      `sha256sum (same file):           median ${b.toFixed(1)} ms over ${ROUNDS} rounds`,
      `ratio odek/sha256sum: ${(a / b).toFixed(2)}x (goal <= 1.5x)`,
    ];
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  for (const line of await benchOdek()) console.log(line);
}
