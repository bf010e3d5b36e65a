/**
 * Parse the Prometheus text exposition in tests: samples with their labels (comments
 * skipped; every line must be well formed).
 *
 * @module
 */

import assert from "node:assert/strict";

/** One sample of the exposition. */
export interface Sample {
  /** Metric name (with `_count`, `_bucket`, … suffixes). */
  name: string;
  /** Its labels. */
  labels: Record<string, string>;
  /** Its value. */
  value: number;
}

/** Parse the Prometheus text format (comments skipped; labels must be well formed). */
export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g)) {
      labels[l[1]] = l[2];
    }
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the first sample of `name` with `labels` (NaN when there is none). */
export function value(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  const s = samples.find((x) =>
    x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v)
  );
  return s?.value ?? NaN;
}
