/**
 * `deno task bench --check`'s verdicts: a goal measured past its bound is `NOT met` and
 * fails the check, one within it is `met`, and one a section could not measure is `SKIP`
 * with its reason (not a failure); only the goals of the sections that ran are listed.
 */

import assert from "node:assert/strict";
import { GOALS, goalSummary, reportGoal, skipGoal } from "../../bench/goals.ts";

function line(lines: string[], label: string): string {
  const found = lines.find((l) => l.includes(label));
  assert.ok(found, `no line for ${label}`);
  return found;
}

Deno.test("every goal of issue 19 is listed once, each in a known section", () => {
  const ids = GOALS.map((g) => g.id);
  assert.equal(new Set(ids).size, ids.length);
  for (
    const id of [
      "cold-start.version-sea",
      "cold-start.version-compiled",
      "cold-start.check-sea",
      "cold-start.serve-sea",
      "process.json-call",
      "process.json-call-added",
      "sessions.kit-added",
      "builtins.grep-class-run",
      "builtins.grep-word-digit",
      "builtins.grep-uuid-prefix",
      "pins.directory",
      "mcp.server-cpu",
      "mcp.sdk-64",
      "mcp.sdk-4096",
      "mcp.sdk-16384",
    ]
  ) assert.ok(ids.includes(id), id);
});

Deno.test("met, NOT met and SKIP, and which ones fail --check", () => {
  assert.equal(reportGoal("pins.directory", 0.8), "goal ≤ 1x: met");
  assert.equal(reportGoal("mcp.sdk-64", 0.9), "goal ≥ 1x: NOT met");
  assert.equal(reportGoal("mcp.sdk-4096", 1.2), "goal ≥ 1x: met");
  skipGoal("builtins.grep-class-run", "rg not installed");

  const pinsOnly = goalSummary(new Set(["pins"]), new Set());
  assert.equal(pinsOnly.failed, false);
  assert.match(line(pinsOnly.lines, "10,000 files"), /0\.80x .* met$/);
  assert.ok(!pinsOnly.lines.some((l) => l.includes("SDK")), "a section that did not run");

  const mcp = goalSummary(new Set(["mcp"]), new Set());
  assert.equal(mcp.failed, true);
  assert.match(line(mcp.lines, "64 B"), /NOT met$/);
  assert.match(line(mcp.lines, "server-filesystem's"), /SKIP \(not measured\)$/);

  const builtins = goalSummary(new Set(["builtins"]), new Set());
  assert.equal(builtins.failed, false, "a SKIP is not a failure");
  assert.match(line(builtins.lines, "[A-Z]+"), /SKIP \(rg not installed\)$/);

  const failed = goalSummary(new Set(["sessions"]), new Set(["sessions"]));
  assert.match(line(failed.lines, "harness-kit"), /SKIP \(section failed\)$/);
});

Deno.test("an unknown goal id is a bench bug, not a silent pass", () => {
  assert.throws(() => reportGoal("no.such-goal", 1), /unknown bench goal/);
});
