/**
 * An extension server's tool listing is output of a tool process like any result: a
 * listing whose name, description or input schema holds a protected value (in any form
 * the redactor knows, also once the description is cleaned as it is published) is not
 * published at all — a schema cannot be redacted without changing what it admits, and a
 * name cannot be redacted without changing the tool called.
 *
 * @module
 */

import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { cleanText } from "../text/text_clean.ts";
import type { Protector } from "../redact/types.ts";

/**
 * Whether the published parts of `t` (name, description, input schema) hold a value of
 * `protect`: as the server sent them, as their compact JSON, or — for the description —
 * cleaned as it would be shown.
 *
 * @example
 * ```ts
 * import { Redactor } from "../redact/redactor.ts";
 * import { listingLeaks } from "./listing_guard.ts";
 * const r = new Redactor();
 * r.add("tok-123456");
 * listingLeaks(r, { name: "x", description: "uses tok-\u0007123456", inputSchema: { type: "object" } }); // true
 * ```
 */
export function listingLeaks(protect: Protector | undefined, t: Tool): boolean {
  if (!protect?.active) return false;
  const shown = { name: t.name, description: t.description, inputSchema: t.inputSchema };
  const strings: string[] = [];
  collectStrings(shown, strings);
  if (typeof t.description === "string") strings.push(cleanText(t.description));
  return strings.some((s) => protect.leaks(s)) || protect.leaks(safeJson(shown));
}

/** Every string of `v`, keys included (iterative: a deep listing cannot exhaust the stack). */
function collectStrings(v: unknown, out: string[]): void {
  const stack: unknown[] = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    if (typeof x === "string") out.push(x);
    else if (Array.isArray(x)) { for (const y of x) stack.push(y); }
    else if (typeof x === "object" && x !== null) {
      for (const [k, y] of Object.entries(x)) {
        out.push(k);
        stack.push(y);
      }
    }
  }
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? "";
  } catch {
    return ""; // cyclic or too deep: the strings were checked one by one
  }
}
