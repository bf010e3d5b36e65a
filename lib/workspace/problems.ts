/**
 * A collector of declaration problems with typed field readers, so validation reports
 * every problem at once, each with its TOML key path.
 *
 * @module
 */

import { DeclarationError, type DeclarationProblem } from "../errors/errors.ts";

/** A TOML table as parsed. */
export type Table = Record<string, unknown>;

/**
 * Collects problems while validating a manifest.
 *
 * @example
 * ```ts
 * import { Problems } from "./problems.ts";
 * const p = new Problems("toolhost.toml", "");
 * p.add("artifacts.x", "must be a table");
 * p.throwIfAny(); // throws DeclarationError
 * ```
 */
export class Problems {
  /** Every problem found so far. */
  readonly list: DeclarationProblem[] = [];
  #file: string;
  #lines: string[];

  /** Create a collector for one manifest file and its text (used to locate lines). */
  constructor(file: string, text: string) {
    this.#file = file;
    this.#lines = text.split("\n");
  }

  /** Record a problem at a key path. */
  add(keyPath: string, message: string): void {
    this.list.push({ file: this.#file, keyPath, line: this.locate(keyPath), message });
  }

  /** Throw one DeclarationError carrying every problem, if any. */
  throwIfAny(): void {
    if (this.list.length === 0) return;
    const [first, ...rest] = this.list;
    const err = new DeclarationError(first.message, first, rest);
    if (rest.length > 0) {
      err.message = this.list.map((p) => formatLine(p)).join("\n");
    }
    throw err;
  }

  /**
   * Best-effort 1-based line of a key path: the deepest table header that prefixes it,
   * then the first assignment of the next key below that header.
   */
  locate(keyPath: string): number | undefined {
    const parts = keyPath.replace(/\[\d+\]/g, "").split(".");
    const full = parts.join(".");
    // A table introduced by a header (possibly through a deeper header).
    const own = this.#lines.findIndex((l) => {
      const h = headerOf(l);
      return h !== undefined && (h === full || h.startsWith(`${full}.`));
    });
    if (own >= 0) return own + 1;
    for (let n = parts.length - 1; n >= 0; n--) {
      const header = parts.slice(0, n).join(".");
      // n === 0: top-level keys, before the first header.
      const idx = n === 0 ? -1 : this.#lines.findIndex((l) => headerOf(l) === header);
      if (n > 0 && idx < 0) continue;
      const key = parts[n];
      for (let i = idx + 1; i < this.#lines.length; i++) {
        const l = this.#lines[i].trimStart();
        if (l.startsWith("[")) break;
        if (l.startsWith(`${key} `) || l.startsWith(`${key}=`) || l.startsWith(`"${key}"`)) {
          return i + 1;
        }
      }
      if (n > 0) return idx + 1;
    }
    return undefined;
  }
}

function formatLine(p: DeclarationProblem): string {
  const where = `${p.file}${p.line ? `:${p.line}` : ""}`;
  return `${where}: ${p.keyPath}: ${p.message}`;
}

function headerOf(line: string): string | undefined {
  const m = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line);
  if (!m) return undefined;
  return m[1].split(".").map((s) => s.trim().replace(/^"(.*)"$/, "$1")).join(".");
}

/**
 * Is this value a plain TOML table (not an array, not a date)?
 *
 * @example
 * ```ts
 * import { isTable } from "./problems.ts";
 * isTable({}); // true
 * isTable([]); // false
 * ```
 */
export function isTable(v: unknown): v is Table {
  if (typeof v !== "object" || v === null || Array.isArray(v) || v instanceof Date) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === null || proto === Object.prototype;
}

/**
 * Report keys of `table` not in `allowed` as unknown-key problems (`keyPath` `""` is
 * the top level).
 *
 * @example
 * ```ts
 * import { checkKeys, Problems } from "./problems.ts";
 * const p = new Problems("t.toml", "");
 * checkKeys(p, "artifacts.a", { path: "a", pth: 1 }, ["path"]);
 * p.list.length; // 1
 * ```
 */
export function checkKeys(
  problems: Problems,
  keyPath: string,
  table: Table,
  allowed: readonly string[],
): void {
  for (const k of Object.keys(table)) {
    if (!allowed.includes(k)) {
      const hint = suggest(k, allowed);
      problems.add(
        keyPath === "" ? k : `${keyPath}.${k}`,
        `unknown key${hint ? ` (did you mean \`${hint}\`?)` : ""}; allowed keys: ${
          allowed.join(", ")
        }`,
      );
    }
  }
}

/**
 * The closest candidate within edit distance 2, for "did you mean" hints.
 *
 * @example
 * ```ts
 * import { suggest } from "./problems.ts";
 * suggest("pth", ["path", "args"]); // "path"
 * ```
 */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = 3;
  for (const c of candidates) {
    const d = editDistance(word.slice(0, 64), c.slice(0, 64));
    if (d < bestD) [best, bestD] = [c, d];
  }
  // A truncated or extended key (`timeout` for `timeout_ms`) is a likely typo too.
  return best ??
    candidates.find((c) =>
      Math.min(c.length, word.length) >= 3 && (c.startsWith(word) || word.startsWith(c))
    );
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}
