/**
 * Where protected values come from: an environment-variable map (reference name → a
 * variable of toolhost's own environment) or a JSON file outside the workspace
 * (`{"reference-name": "value"}`). Configuration problems are reported with their keys.
 *
 * ```toml
 * [plugins.protected-values]
 * provider = "env"
 * env = { deploy-token = "DEPLOY_TOKEN" }   # protected://deploy-token ← $DEPLOY_TOKEN
 *
 * # or
 * provider = "file"
 * file = "/etc/toolhost/protected.json"     # absolute, outside the workspace
 * ```
 *
 * @module
 */

import fs from "node:fs";
import path from "node:path";
import type { ConfigContext, ConfigReporter } from "../../lib/plugins/mod.ts";

/** Keys of `[plugins.protected-values]`. */
export const PROVIDER_KEYS = ["provider", "env", "file"] as const;
/** Reference names: `protected://<name>`. */
export const REF_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Largest provider file, in bytes. */
export const MAX_PROVIDER_FILE_BYTES = 1024 * 1024;

/** A validated provider configuration. */
export type ProviderConfig =
  | { provider: "env"; env: Record<string, string> }
  | { provider: "file"; file: string };

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/**
 * Is `file` (absolute) outside `root`? Compares real paths where they exist.
 *
 * @example
 * ```ts
 * import { outsideRoot } from "./provider.ts";
 * outsideRoot("/etc/x.json", "/work/ws"); // true
 * ```
 */
export function outsideRoot(file: string, root: string): boolean {
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  const rel = path.relative(real(root), real(file));
  return rel.startsWith("..") || path.isAbsolute(rel);
}

/**
 * Validate the configuration; returns null after reporting any problem.
 *
 * @example
 * ```ts
 * import { readProviderConfig } from "./provider.ts";
 * readProviderConfig({ provider: "env", env: { t: "TOKEN" } }, () => {}, { root: "/ws" });
 * ```
 */
export function readProviderConfig(
  c: Readonly<Record<string, unknown>>,
  report: ConfigReporter,
  ctx: ConfigContext,
): ProviderConfig | null {
  let n = 0;
  const rep: ConfigReporter = (k, m) => (n++, report(k, m));
  for (const k of Object.keys(c)) {
    if (!(PROVIDER_KEYS as readonly string[]).includes(k)) {
      rep(k, `unknown key; allowed keys: ${PROVIDER_KEYS.join(", ")}`);
    }
  }
  if (c.provider === "env") {
    if (c.file !== undefined) rep("file", 'is only allowed with provider = "file"');
    if (!isTable(c.env)) {
      rep("env", 'is required with provider = "env": a table of reference name → variable name');
    } else {for (const [ref, v] of Object.entries(c.env)) {
        if (!REF_NAME.test(ref)) {
          rep(`env.${ref}`, "reference names must match [A-Za-z0-9][A-Za-z0-9._-]*");
        } else if (typeof v !== "string" || !ENV_NAME.test(v)) {
          rep(`env.${ref}`, "must name an environment variable");
        }
      }}
    return n > 0 ? null : { provider: "env", env: { ...(c.env as Record<string, string>) } };
  }
  if (c.provider === "file") {
    if (c.env !== undefined) rep("env", 'is only allowed with provider = "env"');
    if (typeof c.file !== "string" || !path.isAbsolute(c.file)) {
      rep("file", "must be an absolute path");
    } else if (!outsideRoot(c.file, ctx.root)) rep("file", "must lie outside the workspace");
    return n > 0 ? null : { provider: "file", file: c.file as string };
  }
  rep("provider", 'is required: "env" or "file"');
  return null;
}

/**
 * Load every value the provider holds: reference name → value (empty values are left
 * out). A file that cannot be read or parsed throws (the plugin then fails to set up).
 *
 * @example
 * ```ts
 * import { loadValues } from "./provider.ts";
 * loadValues({ provider: "env", env: { t: "TOKEN" } }, { TOKEN: "abc" }); // Map { "t" => "abc" }
 * ```
 */
export function loadValues(
  cfg: ProviderConfig,
  env: Readonly<Record<string, string>>,
): Map<string, string> {
  const out = new Map<string, string>();
  if (cfg.provider === "env") {
    for (const [ref, name] of Object.entries(cfg.env)) {
      const v = env[name];
      if (typeof v === "string" && v !== "") out.set(ref, v);
    }
    return out;
  }
  const fd = fs.openSync(cfg.file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  let text: string;
  try {
    if (fs.fstatSync(fd).size > MAX_PROVIDER_FILE_BYTES) throw new Error("provider file too large");
    text = fs.readFileSync(fd, "utf8");
  } finally {
    fs.closeSync(fd);
  }
  const data: unknown = JSON.parse(text);
  if (!isTable(data)) throw new Error("the provider file must hold a JSON object");
  for (const [ref, v] of Object.entries(data)) {
    if (REF_NAME.test(ref) && typeof v === "string" && v !== "") out.set(ref, v);
  }
  return out;
}
