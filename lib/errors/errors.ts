/**
 * Typed errors with stable `code` strings. Messages say what was wrong and where
 * (file, TOML key, logical path) and what to do — never argument values, stderr or
 * tool output.
 *
 * @module
 */

/** Stable error codes used across toolhost. */
export type ErrorCode =
  | "DECLARATION_ERROR"
  | "INVALID_INVOCATION"
  | "INVALID_ARGUMENTS"
  | "PREPARATION_FAILED"
  | "TOOL_ERROR"
  | "UNKNOWN_TOOL"
  | "UNKNOWN_EVAL"
  | "PATH_ERROR"
  | "CLEANUP_FAILED"
  | "INVALID_ARTIFACT"
  | "SESSION_ERROR"
  | "LOCK_MISMATCH"
  | "INTERRUPTED";

/**
 * Base class of every error toolhost raises on purpose.
 *
 * @example
 * ```ts
 * import { ToolhostError } from "./errors.ts";
 * try {
 *   throw new ToolhostError("TOOL_ERROR", "The tool failed.");
 * } catch (e) {
 *   if (e instanceof ToolhostError) console.log(e.code);
 * }
 * ```
 */
export class ToolhostError extends Error {
  /** Stable machine-readable code. */
  readonly code: ErrorCode;
  /** Create an error with a stable code and a value-free message. */
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.code = code;
    this.name = new.target.name;
  }
}

/** Where a declaration problem sits in the manifest. */
export interface DeclarationLocation {
  /** Manifest file path as given to the loader. */
  file?: string;
  /** Dotted TOML key path such as `artifacts.app.views.agent_tools.read.builtin`. */
  keyPath?: string;
  /** 1-based line, where known. */
  line?: number;
}

/**
 * A declaration in `toolhost.toml` is invalid. Names the TOML key path.
 *
 * @example
 * ```ts
 * import { DeclarationError } from "./errors.ts";
 * const e = new DeclarationError("unknown key", { keyPath: "artifacts.app.pth" });
 * console.log(e.message); // "artifacts.app.pth: unknown key"
 * ```
 */
export class DeclarationError extends ToolhostError {
  /** Where the problem is. */
  readonly location: DeclarationLocation;
  /** Every problem found, when several were collected (this one first). */
  readonly problems: DeclarationProblem[];
  /** Create a declaration error located at a TOML key path. */
  constructor(
    problem: string,
    location: DeclarationLocation = {},
    more: DeclarationProblem[] = [],
  ) {
    super("DECLARATION_ERROR", formatProblem({ message: problem, ...location }));
    this.location = location;
    this.problems = [{ message: problem, ...location }, ...more];
  }
}

/** One declaration problem. */
export interface DeclarationProblem extends DeclarationLocation {
  /** What is wrong and what to do. */
  message: string;
}

/**
 * Format a problem as `file:line: key.path: message`.
 *
 * @example
 * ```ts
 * import { formatProblem } from "./errors.ts";
 * formatProblem({ message: "must be a string", keyPath: "artifacts.a.path" });
 * ```
 */
export function formatProblem(p: DeclarationProblem): string {
  const where = [p.file ? (p.line ? `${p.file}:${p.line}` : p.file) : "", p.keyPath ?? ""]
    .filter((s) => s !== "")
    .join(": ");
  return where ? `${where}: ${p.message}` : p.message;
}

/**
 * The caller asked for something impossible (bad flags, unknown eval, bad JSON).
 *
 * @example
 * ```ts
 * import { InvocationError } from "./errors.ts";
 * new InvocationError("--eval cannot be combined with --artifact").code; // "INVALID_INVOCATION"
 * ```
 */
export class InvocationError extends ToolhostError {
  /** Create an invocation error. */
  constructor(message: string, code: ErrorCode = "INVALID_INVOCATION") {
    super(code, message);
  }
}

/**
 * Preparing an eval failed before any tool ran (e.g. an execution path could not be pinned).
 *
 * @example
 * ```ts
 * import { PreparationFailed } from "./errors.ts";
 * new PreparationFailed("execution path `tools/x` is missing").code; // "PREPARATION_FAILED"
 * ```
 */
export class PreparationFailed extends ToolhostError {
  /** Create a preparation failure. */
  constructor(message: string) {
    super("PREPARATION_FAILED", message);
  }
}

/**
 * A logical path was rejected or could not be opened safely.
 *
 * @example
 * ```ts
 * import { PathError } from "./errors.ts";
 * new PathError("path component `..` is not allowed").code; // "PATH_ERROR"
 * ```
 */
export class PathError extends ToolhostError {
  /** Create a path error. */
  constructor(message: string) {
    super("PATH_ERROR", message);
  }
}

/**
 * Cleanup of processes or directories could not be confirmed.
 *
 * @example
 * ```ts
 * import { CleanupFailed } from "./errors.ts";
 * new CleanupFailed("session `app` directory could not be removed").code; // "CLEANUP_FAILED"
 * ```
 */
export class CleanupFailed extends ToolhostError {
  /** Create a cleanup failure. */
  constructor(message: string) {
    super("CLEANUP_FAILED", message);
  }
}
