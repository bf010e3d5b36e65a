/**
 * The extensions an open registry serves (issue 18): one {@link ExtensionHost} per
 * registry, created with the registry's lock and artifact home. With a current
 * `toolhost.lock` their tools are published from the lock at open — no server is
 * started — so `Registry.list()` shows them; the first call starts the server and
 * verifies its live tool list against the lock. Without a lock nothing is listed until
 * something lists them live (`serve`'s `tools/list`), as before.
 *
 * @module
 */

// Types only: the host (and through it the MCP client, its HTTP transports and their
// schemas) is loaded when an eval admits extensions, not by every registry.
import type { ExtensionHost, ExtensionHostOptions } from "../extensions/host.ts";
import { registryHostOptions, type RegistryTrust } from "../extensions/trust_options.ts";
import { evalExtensions, type ExtensionDecl } from "../workspace/parse_extensions.ts";

/** Options of the extensions a registry serves (see `RegistryOptions.extensions`). */
export type RegistryExtensionOptions = Pick<ExtensionHostOptions, "log" | "graceMs" | "restart">;

/**
 * The extension host of an open registry, or undefined when its eval admits none.
 * `reserved`: the names the registry itself publishes (extension tools never shadow them).
 * Starts no server.
 *
 * @example
 * ```ts
 * import { openRegistryExtensions } from "./registry_extensions.ts";
 * // const host = await openRegistryExtensions(reg, new Set(reg.list().map((t) => t.name)));
 * ```
 */
export async function openRegistryExtensions(
  reg: RegistryTrust,
  reserved: ReadonlySet<string>,
  opts: RegistryExtensionOptions = {},
  protect?: { add(value: string): void },
): Promise<ExtensionHost | undefined> {
  const evalId = reg.selection.evalId;
  if (evalId === undefined || evalExtensions(reg.workspace, evalId).length === 0) return undefined;
  // What toolhost itself sends a remote server from the environment (its bearer token,
  // env_http_headers) is a secret: a server reflecting it never hands it to the model.
  for (const d of evalExtensions(reg.workspace, evalId)) {
    for (const v of remoteCredentials(d, reg.env)) protect?.add(v);
  }
  const { ExtensionHost } = await import("../extensions/host.ts");
  const host = ExtensionHost.forEval(reg.workspace, evalId, {
    env: reg.env,
    ...registryHostOptions(reg),
    ...opts,
    reserved,
  });
  await host.prelist();
  return host;
}

/**
 * The values a remote extension's requests carry from the environment: its bearer token
 * and its `env_http_headers` (literal `http_headers` are the manifest's, not secrets), each
 * of at least 8 characters.
 *
 * @example
 * ```ts
 * import { remoteCredentials } from "./registry_extensions.ts";
 * const remote = { url: "https://h/mcp", bearerTokenEnvVar: "T", envHttpHeaders: {}, httpHeaders: {} };
 * remoteCredentials({ remote } as never, { T: "abcdefgh" }); // ["abcdefgh"]
 * ```
 */
export function remoteCredentials(decl: ExtensionDecl, env: Record<string, string>): string[] {
  const r = decl.remote;
  if (r === undefined) return [];
  const vars = [
    ...Object.values(r.envHttpHeaders),
    ...(r.bearerTokenEnvVar ? [r.bearerTokenEnvVar] : []),
  ];
  return vars.map((v) => env[v]).filter((v): v is string =>
    typeof v === "string" && v.length >= MIN_CREDENTIAL_UNITS
  );
}

/**
 * Shortest credential protected: a shorter one (a one-letter test key) would mask ordinary
 * text everywhere and is no secret worth the name.
 *
 * @example
 * ```ts
 * import { MIN_CREDENTIAL_UNITS } from "./registry_extensions.ts";
 * MIN_CREDENTIAL_UNITS; // 8
 * ```
 */
export const MIN_CREDENTIAL_UNITS = 8;
