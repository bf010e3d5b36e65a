/**
 * A collector of declaration problems with typed field readers, so validation reports
 * every problem at once, each with its TOML key path.
 *
 * @module
 */

import { DeclarationError, type DeclarationProblem } from "../errors/errors.ts";
import { escapeShown } from "../paths/show_path.ts";

/** A TOML table as parsed. */
export type Table = Record<string, unknown>;

/** Most problems reported (located and printed); the rest are only counted. */
export const MAX_REPORTED_PROBLEMS = 100;

/**
 * Most key-path components a line index keeps prefixes for (declarations go about ten
 * deep; a manifest may dot a header a hundred thousand times, which must stay linear).
 */
const MAX_LOCATED_DEPTH = 64;

/** Most UTF-16 code units of a key path shown in a message. */
const SHOWN_KEY_UNITS = 160;

/**
 * A manifest-derived key path as it appears in a message: every character that could
 * rewrite the terminal escaped as `\u{…}`, cut after 160 UTF-16 code units.
 *
 * @example
 * ```ts
 * import { showKeyPath } from "./problems.ts";
 * showKeyPath("artifacts.a\u001b[2J"); // "artifacts.a\\u{1b}[2J"
 * ```
 */
export function showKeyPath(keyPath: string): string {
  return escapeShown(keyPath, SHOWN_KEY_UNITS);
}

/** The manifest's lines, indexed once so locating a key path does not rescan them. */
interface LineIndex {
  /** Every prefix of a table header (`a`, `a.b` for `[a.b]`) → its first header line. */
  headerPrefix: Map<string, number>;
  /** A table header → its first line. */
  header: Map<string, number>;
  /** The line of a section's opening `[` (-1: the top level) → its keys' first lines. */
  sectionKeys: Map<number, Map<string, number>>;
}

/**
 * Collects problems while validating a manifest. Every problem is kept in `list`; the
 * first {@linkcode MAX_REPORTED_PROBLEMS} are located and reported, the rest counted.
 *
 * @example
 * ```ts
 * import { DeclarationError } from "../errors/errors.ts";
 * import { Problems } from "./problems.ts";
 * const p = new Problems("toolhost.toml", "");
 * p.add("artifacts.x", "must be a table");
 * try {
 *   p.throwIfAny();
 * } catch (e) {
 *   e instanceof DeclarationError; // true: "toolhost.toml: artifacts.x: must be a table"
 * }
 * ```
 */
export class Problems {
  /** Every problem found so far (key paths and messages escaped for display). */
  readonly list: DeclarationProblem[] = [];
  #file: string;
  #text: string;
  #index: LineIndex | undefined;

  /** Create a collector for one manifest file and its text (used to locate lines). */
  constructor(file: string, text: string) {
    this.#file = file;
    this.#text = text;
  }

  /** Record a problem at a key path. */
  add(keyPath: string, message: string): void {
    const line = this.list.length < MAX_REPORTED_PROBLEMS ? this.locate(keyPath) : undefined;
    this.list.push({
      file: this.#file,
      keyPath: showKeyPath(keyPath),
      line,
      message: escapeShown(message),
    });
  }

  /**
   * Throw one DeclarationError carrying the reported problems, if any, in manifest line
   * order (problems without a line last, in the order found).
   */
  throwIfAny(): void {
    if (this.list.length === 0) return;
    const shown = byLine(this.list.slice(0, MAX_REPORTED_PROBLEMS));
    const [first, ...rest] = shown;
    const err = new DeclarationError(first.message, first, rest);
    const more = this.list.length - shown.length;
    if (rest.length > 0 || more > 0) {
      const lines = shown.map((p) => formatLine(p));
      if (more > 0) lines.push(`and ${more} more problem${more === 1 ? "" : "s"}`);
      err.message = lines.join("\n");
    }
    throw err;
  }

  /**
   * Best-effort 1-based line of a key path: the deepest table header that prefixes it,
   * then the first assignment of the next key below that header.
   */
  locate(keyPath: string): number | undefined {
    const index = this.#index ??= indexLines(this.#text);
    const parts = keyPath.replace(/\[\d+\]/g, "").split(".");
    if (parts.length > MAX_LOCATED_DEPTH) {
      // Deeper than any declaration goes: its header's line, found by a bounded prefix.
      const at = index.headerPrefix.get(parts.slice(0, MAX_LOCATED_DEPTH).join("."));
      return at === undefined ? undefined : at + 1;
    }
    // A table introduced by a header (possibly through a deeper header).
    const own = index.headerPrefix.get(parts.join("."));
    if (own !== undefined) return own + 1;
    for (let n = parts.length - 1; n >= 0; n--) {
      // n === 0: top-level keys, before the first header.
      const idx = n === 0 ? -1 : index.header.get(parts.slice(0, n).join("."));
      if (idx === undefined) continue;
      const hit = index.sectionKeys.get(idx)?.get(parts[n]);
      if (hit !== undefined) return hit + 1;
      if (n > 0) return idx + 1;
    }
    return undefined;
  }
}

/** Stable sort by line; problems without a line keep their order after the rest. */
function byLine(list: DeclarationProblem[]): DeclarationProblem[] {
  const key = (p: DeclarationProblem) => p.line ?? Number.MAX_SAFE_INTEGER;
  return list.map((p, i) => ({ p, i })).sort((a, b) => key(a.p) - key(b.p) || a.i - b.i)
    .map((e) => e.p);
}

function indexLines(text: string): LineIndex {
  const index: LineIndex = { headerPrefix: new Map(), header: new Map(), sectionKeys: new Map() };
  let keys = new Map<string, number>();
  index.sectionKeys.set(-1, keys);
  text.split("\n").forEach((line, i) => {
    const l = line.trimStart();
    if (l.startsWith("[")) {
      keys = new Map();
      index.sectionKeys.set(i, keys);
      const h = headerOf(line);
      if (h === undefined) return;
      if (!index.header.has(h)) index.header.set(h, i);
      // Prefixes up to MAX_LOCATED_DEPTH components, each built from the last: the
      // characters kept stay linear in the header, however many dotted keys it has.
      const hp = h.split(".", MAX_LOCATED_DEPTH);
      let prefix = "";
      for (let n = 0; n < hp.length; n++) {
        prefix = n === 0 ? hp[0] : `${prefix}.${hp[n]}`;
        if (!index.headerPrefix.has(prefix)) index.headerPrefix.set(prefix, i);
      }
      return;
    }
    const key = leadingKey(l);
    if (key !== undefined && !keys.has(key)) keys.set(key, i);
  });
  return index;
}

/** The key a (trimmed) line assigns: `key = …`, `key=…` or `"key" …`. */
function leadingKey(l: string): string | undefined {
  if (l.startsWith('"')) {
    const end = l.indexOf('"', 1);
    return end > 0 ? l.slice(1, end) : undefined;
  }
  const m = /^[^ =]+(?=[ =])/.exec(l);
  return m ? m[0] : undefined;
}

function formatLine(p: DeclarationProblem): string {
  const where = `${p.file}${p.line ? `:${p.line}` : ""}`;
  return `${where}: ${p.keyPath}: ${p.message}`;
}

/**
 * The key path of a `[table]` or `[[array]]` header line, scanned in one pass: a regex
 * with a lazy body and optional blanks before `]` backtracked quadratically over a long
 * run of blanks (a 1 MB line, e.g. in a multi-line string, took minutes).
 */
function headerOf(line: string): string | undefined {
  const l = line.trimStart();
  if (!l.startsWith("[")) return undefined;
  const body = l.slice(l.startsWith("[[") ? 2 : 1);
  const close = body.indexOf("]");
  const inner = close < 0 ? "" : body.slice(0, close).trim();
  if (inner === "") return undefined;
  let rest = body.slice(close + 1);
  if (rest.startsWith("]")) rest = rest.slice(1);
  rest = rest.trimStart();
  if (rest !== "" && !rest.startsWith("#")) return undefined;
  return inner.split(".").map((s) => unquote(s.trim())).join(".");
}

function unquote(s: string): string {
  return s.length >= 2 && s.startsWith('"') && s.endsWith('"') ? s.slice(1, -1) : s;
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

/**
 * The message for a value outside a closed set: `must be "a" or "b"` (or `one of ...`),
 * with a did-you-mean when the value is a near miss. Quotes only the allowed values and
 * the suggestion, never the value itself.
 *
 * @example
 * ```ts
 * import { mustBeOneOf } from "./problems.ts";
 * mustBeOneOf("agnet", ["agent", "human"]); // 'must be "agent" or "human" (did you mean "agent"?)'
 * ```
 */
export function mustBeOneOf(value: unknown, allowed: readonly string[]): string {
  const quoted = allowed.map((a) => `"${a}"`);
  const choices = quoted.length <= 2
    ? quoted.join(" or ")
    : `one of ${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`;
  const hint = typeof value === "string" ? suggest(value, allowed) : undefined;
  return `must be ${choices}${hint === undefined ? "" : ` (did you mean "${hint}"?)`}`;
}

/**
 * The problem text for a bound tool whose `session` names none of its Artifact's sessions:
 * a did-you-mean and the sessions there are (or how to declare one).
 *
 * @example
 * ```ts
 * import { noSession } from "./problems.ts";
 * noSession("nots", "tools", ["notes"]);
 * // "names no session of Artifact `tools` (did you mean `notes`?); its sessions: notes"
 * ```
 */
export function noSession(name: string, artifactId: string, sessions: readonly string[]): string {
  const hint = suggest(name, sessions);
  const head = `names no session of Artifact \`${artifactId}\`${
    hint === undefined ? "" : ` (did you mean \`${hint}\`?)`
  }`;
  return sessions.length > 0
    ? `${head}; its sessions: ${sessions.join(", ")}`
    : `${head}; it declares none (\`[artifacts.${artifactId}.views.agent_sessions.NAME]\`)`;
}
