/**
 * Protocol test helpers: run a fixture through the whole json/plain pipeline and assert
 * that no call directory and no process of the call survive.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { ProcessRecord } from "../../lib/process/proc_identity.ts";
import {
  invokeJsonCommand,
  invokePlainCommand,
  type JsonCommandCall,
  type PlainCommandCall,
} from "../../lib/protocols/invoke.ts";
import type { ToolResult } from "../../lib/results/types.ts";
import { assertGroupGone, ENV, tool, TOOLS, withStateDir } from "../process/helpers.ts";

/** Options for {@linkcode callJson}. */
export type JsonCallExtra = Partial<Omit<JsonCommandCall, "command" | "argv">>;

/** Run a json fixture end to end; asserts cleanup of processes and call dirs. */
export async function callJson(
  fixture: string,
  argv: string[],
  extra: JsonCallExtra = {},
): Promise<ToolResult> {
  let result: ToolResult | undefined;
  const records: ProcessRecord[] = [];
  await withStateDir(async (stateDir) => {
    result = await invokeJsonCommand({
      command: tool(fixture),
      argv,
      cwd: TOOLS,
      stateDir,
      baseEnv: ENV,
      context: { artifactId: "fx", artifactPath: TOOLS, scope: {} },
      args: {},
      onSpawn: (r) => void records.push(r),
      ...extra,
    });
  });
  for (const r of records) assertGroupGone(r);
  return result!;
}

/** Options for {@linkcode callPlain}. */
export type PlainCallExtra = Partial<Omit<PlainCommandCall, "command" | "template">>;

/** Run a plain fixture end to end; asserts cleanup of processes and call dirs. */
export async function callPlain(
  fixture: string,
  template: string[],
  extra: PlainCallExtra = {},
): Promise<ToolResult> {
  let result: ToolResult | undefined;
  const records: ProcessRecord[] = [];
  await withStateDir(async (stateDir) => {
    result = await invokePlainCommand({
      command: tool(fixture),
      template,
      properties: [],
      args: {},
      cwd: TOOLS,
      stateDir,
      baseEnv: ENV,
      onSpawn: (r) => void records.push(r),
      ...extra,
    });
  });
  for (const r of records) assertGroupGone(r);
  return result!;
}

/** Assert a single-text error result with exactly `message`. */
export function assertError(result: ToolResult, message: string | RegExp): void {
  assert.equal(result.isError, true);
  assert.equal(result.content.length, 1);
  const block = result.content[0];
  assert.equal(block.type, "text");
  if (block.type !== "text") return;
  if (typeof message === "string") assert.equal(block.text, message);
  else assert.match(block.text, message);
}

/** Assert an invalid-output error whose rule matches `rule`. */
export function assertInvalid(result: ToolResult, rule: RegExp): void {
  assertError(result, /^The tool's output was invalid: /);
  const block = result.content[0];
  if (block.type === "text") assert.match(block.text, rule);
}
