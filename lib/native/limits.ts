/**
 * The figures of the native catalog (defaults and hard maxima), in one place so that
 * schemas, runtimes, docs and boundary tests agree.
 *
 * @module
 */

const KIB = 1024;
const MIB = 1024 * 1024;

/** Bounds of the native tools. */
export const NATIVE_LIMITS = Object.freeze({
  /** files_read: default `maxBytes` (the seed's harness default). */
  readDefaultBytes: 512_000,
  /** files_read: largest `maxBytes`. */
  readMaxBytes: MIB,
  /** files_list: default depth. */
  listDefaultDepth: 4,
  /** files_list / files_find: largest depth. */
  maxDepth: 32,
  /** files_list: default entries. */
  listDefaultEntries: 500,
  /** files_list / files_find: largest entry/result count. */
  maxEntries: 5000,
  /** files_find: default depth. */
  findDefaultDepth: 8,
  /** files_find: default results. */
  findDefaultResults: 500,
  /** files_find / files_search / files_list: entries visited before the scan stops. */
  scanEntries: 20_000,
  /** files_search: default matches. */
  searchDefaultMatches: 200,
  /** files_search: largest `maxMatches`. */
  searchMaxMatches: 2000,
  /** files_search: files larger than this are skipped (reported). */
  searchMaxFileBytes: 4 * MIB,
  /** files_search: cumulative bytes read before the search stops (truncated). */
  searchScanBudget: 128 * MIB,
  /** files_search: longest query, in UTF-16 code units. */
  searchMaxQueryUnits: 1000,
  /** files_search: line text kept per match, in UTF-16 code units. */
  searchLineUnits: 500,
  /** files_inspect: bytes read for the encoding guess and line count. */
  inspectMaxBytes: 16 * MIB,
  /** shell_exec: default deadline. */
  shellDefaultTimeoutMs: 30_000,
  /** shell_exec: largest deadline. */
  shellMaxTimeoutMs: 600_000,
  /** shell_exec: default bytes kept per stream. */
  shellDefaultOutputBytes: 32 * KIB,
  /** shell_exec: largest bytes kept per stream. */
  shellMaxOutputBytes: 64 * KIB,
  /** shell_exec: most arguments / env overrides. */
  shellMaxArgs: 256,
  /** git_status / git_diff: deadline. */
  gitTimeoutMs: 30_000,
  /** git_status / git_diff: bytes of output kept. */
  gitMaxOutputBytes: 256 * KIB,
  /** git_diff: most paths. */
  gitMaxPaths: 64,
  /** files_patch: most files per patch. */
  patchMaxFiles: 64,
  /** files_write / edit / patch: largest resulting file. */
  writeMaxFileBytes: 16 * MIB,
});
