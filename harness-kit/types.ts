/**
 * Types shared by harness-kit: the request a json-protocol tool receives, the blocks it
 * returns, and what a handler may return.
 *
 * @module
 */

import type { JsonBlock, TextBlock } from "../lib/results/types.ts";

/** One Artifact of the eval's admitted scope, as a tool sees it. */
export interface ScopeEntry {
  /** Canonical physical path (a file Artifact's file itself). */
  path: string;
  /** Artifact kind. */
  kind: "file" | "folder" | "graph";
  /** Logical child path → child Artifact id. */
  children: Record<string, string>;
}

/** The request's context, plus the session directory when the tool runs in a session. */
export interface ToolContext {
  /** Canonical id of the Artifact that declared the tool. */
  artifactId: string;
  /** Its physical path (a file Artifact's file; the cwd is its folder). */
  artifactPath: string;
  /** This invocation's private output directory (image `path` blocks are read from it). */
  outputDir: string;
  /** This invocation's private temporary directory. */
  tmpDir: string;
  /** Admitted Artifacts by id. */
  scope: Record<string, ScopeEntry>;
  /** Declared execution path → physical path (empty when none were declared). */
  executionPaths: Record<string, string>;
  /** `ARTIFACTIZE_SESSION_DIR` / `TOOLHOST_SESSION_DIR`, when the tool is bound to a session. */
  sessionDir?: string;
}

// Text and json blocks are exactly the normalized ones; image blocks differ (a tool may
// also name a file in its output directory).
export type { JsonBlock, TextBlock };

/** Image formats toolhost accepts. */
export type ImageMime = "image/png" | "image/jpeg" | "image/webp";

/** An image block: base64 `data`, or a `path` below the invocation's output directory. */
export type ImageBlock =
  | { type: "image"; mimeType: ImageMime; data: string }
  | { type: "image"; mimeType: ImageMime; path: string };

/** Any block a tool may return. */
export type Block = TextBlock | JsonBlock | ImageBlock;

/** The json-protocol result object printed on stdout. */
export interface ResultObject {
  /** 1–32 blocks. */
  content: Block[];
  /** True for an authored error (exactly one nonblank text block). */
  isError?: boolean;
}

/**
 * What a handler may return: a string (one text block), one block, a list of blocks, or a
 * full result object.
 */
export type ToolOutput = string | Block | Block[] | ResultObject;

/** A JSON Schema (harness-kit checks a documented subset; see validate.ts). */
export type JsonSchema = Record<string, unknown>;
