import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readProcLine } from "../../lib/process/proc_line.ts";

Deno.test("readProcLine reads a /proc line whole, as readFileSync does", () => {
  const line = readProcLine("/proc/loadavg");
  assert.ok(line.endsWith("\n"));
  assert.equal(line.trim().split(" ").length, 5);
  const stat = readProcLine("/proc/self/stat");
  assert.equal(stat.split(" ")[0], readFileSync("/proc/self/stat", "latin1").split(" ")[0]);
});

Deno.test("readProcLine returns longer or unterminated text whole", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-procline-"));
  try {
    for (const text of ["short, no newline", "x".repeat(5000), `${"y".repeat(4095)}\n`]) {
      writeFileSync(join(dir, "f"), text);
      assert.equal(readProcLine(join(dir, "f")), text);
    }
    assert.throws(() => readProcLine(join(dir, "missing")), /ENOENT/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
