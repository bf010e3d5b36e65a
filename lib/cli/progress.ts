/**
 * A one-line progress indication on stderr for work that can take more than a second
 * (pinning large execution paths, tool calls with sessions, sweeping). It prints only when
 * the stream is a terminal, starts only after `delayMs`, redraws one line with `\r`, and
 * erases that line when the work ends — so pipes, logs and CI output never see it, and
 * stdout is never touched. Color (a dim spinner) follows {@linkcode colorEnabled}.
 *
 * @module
 */

import { clearInterval, clearTimeout, setInterval, setTimeout } from "node:timers";
import { colorEnabled, paint } from "./color.ts";

/** Where progress is drawn. */
export interface ProgressStream {
  /** True when the stream is a terminal. */
  isTTY?: boolean;
  /** Write text. */
  write(text: string): unknown;
}

/** Timer functions (injectable for tests). */
export interface ProgressTimers {
  /** Run once after `ms`. */
  setTimeout(f: () => void, ms: number): unknown;
  /** Cancel a `setTimeout`. */
  clearTimeout(handle: unknown): void;
  /** Run every `ms`. */
  setInterval(f: () => void, ms: number): unknown;
  /** Cancel a `setInterval`. */
  clearInterval(handle: unknown): void;
}

/** Options of {@linkcode startProgress}. */
export interface ProgressOptions {
  /** The stream. Default `process.stderr`. */
  stream?: ProgressStream;
  /** Quiet period before the first frame, in ms. Default 1000. */
  delayMs?: number;
  /** Time between frames, in ms. Default 100. */
  intervalMs?: number;
  /** Environment for the color decision. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Timers. Default node:timers (unref'd: progress never keeps the process alive). */
  timers?: ProgressTimers;
}

/** A running progress indication. */
export interface Progress {
  /** Change the label (shown from the next frame). */
  update(label: string): void;
  /** Erase the line (if anything was drawn) and stop; idempotent. */
  stop(): void;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const MAX_LABEL = 60;

function unref(handle: unknown): unknown {
  (handle as { unref?: () => void }).unref?.();
  return handle;
}

const NODE_TIMERS: ProgressTimers = {
  setTimeout: (f, ms) => unref(setTimeout(f, ms)),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  setInterval: (f, ms) => unref(setInterval(f, ms)),
  clearInterval: (h) => clearInterval(h as ReturnType<typeof setInterval>),
};

const NOOP: Progress = { update() {}, stop() {} };

/**
 * Start a progress indication with `label`; a no-op unless the stream is a terminal.
 *
 * @example
 * ```ts
 * import { startProgress } from "./progress.ts";
 * const p = startProgress("pinning execution paths");
 * try {
 *   // ... long work ...
 * } finally {
 *   p.stop();
 * }
 * ```
 */
export function startProgress(label: string, options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr;
  if (stream.isTTY !== true) return NOOP;
  const timers = options.timers ?? NODE_TIMERS;
  const color = colorEnabled(stream, options.env ?? process.env);
  let text = label;
  let frame = 0;
  let width = 0;
  let interval: unknown;
  let stopped = false;
  const draw = () => {
    const shown = text.length > MAX_LABEL ? `${text.slice(0, MAX_LABEL - 1)}…` : text;
    const line = `${paint(FRAMES[frame++ % FRAMES.length], "dim", color)} ${shown}…`;
    const visible = shown.length + 3;
    stream.write(`\r${line}${" ".repeat(Math.max(0, width - visible))}`);
    width = Math.max(width, visible);
  };
  const delay = timers.setTimeout(() => {
    if (stopped) return;
    draw();
    interval = timers.setInterval(draw, options.intervalMs ?? 100);
  }, options.delayMs ?? 1000);
  return {
    update(next) {
      text = next;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      timers.clearTimeout(delay);
      if (interval !== undefined) timers.clearInterval(interval);
      if (width > 0) stream.write(`\r${" ".repeat(width)}\r`);
    },
  };
}

/**
 * Run `work` with a progress indication that is stopped (and erased) however it ends.
 *
 * @example
 * ```ts
 * import { withProgress } from "./progress.ts";
 * const n = await withProgress("sweeping stale sessions", async () => 3);
 * ```
 */
export async function withProgress<T>(
  label: string,
  work: (progress: Progress) => Promise<T>,
  options: ProgressOptions = {},
): Promise<T> {
  const progress = startProgress(label, options);
  try {
    return await work(progress);
  } finally {
    progress.stop();
  }
}
