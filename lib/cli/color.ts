/**
 * Terminal color, only where it belongs: on a stream that is a TTY, with `NO_COLOR` unset
 * or empty (https://no-color.org) and `TERM` other than `dumb`.
 *
 * @module
 */

/** A stream that may be a terminal. */
export interface MaybeTty {
  /** True when the stream is a terminal. */
  isTTY?: boolean;
}

/** The styles toolhost uses. */
export type Style = "red" | "yellow" | "green" | "dim" | "bold";

const CODES: Record<Style, [number, number]> = {
  red: [31, 39],
  yellow: [33, 39],
  green: [32, 39],
  dim: [2, 22],
  bold: [1, 22],
};

/**
 * Whether to color output written to `stream`.
 *
 * @example
 * ```ts
 * import { colorEnabled } from "./color.ts";
 * colorEnabled({ isTTY: true }, { NO_COLOR: "1" }); // false
 * colorEnabled({ isTTY: false }, {}); // false
 * colorEnabled({ isTTY: true }, { TERM: "xterm" }); // true
 * ```
 */
export function colorEnabled(
  stream: MaybeTty = process.stderr,
  env: Record<string, string | undefined> = process.env,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.TERM === "dumb") return false;
  return stream.isTTY === true;
}

/**
 * Wrap `text` in the ANSI codes of `style` when `enabled`, else return it unchanged.
 *
 * @example
 * ```ts
 * import { paint } from "./color.ts";
 * paint("error", "red", true); // "\x1b[31merror\x1b[39m"
 * paint("error", "red", false); // "error"
 * ```
 */
export function paint(text: string, style: Style, enabled: boolean): string {
  if (!enabled) return text;
  const [open, close] = CODES[style];
  return `\x1b[${open}m${text}\x1b[${close}m`;
}
