/**
 * MCP for toolhost: serve an eval's tools to MCP clients (stdio, Streamable HTTP) and
 * take MCP servers in as extensions.
 *
 * @example
 * ```ts
 * import { loadWorkspace } from "../workspace/load_workspace.ts";
 * import { Registry } from "../registry/registry.ts";
 * import { evalToolSource, serveStdio } from "./mod.ts";
 * const ws = await loadWorkspace("examples");
 * const source = evalToolSource(await Registry.open(ws, "app/review"));
 * await serveStdio(source, { log: (l) => console.error(l) });
 * ```
 *
 * @module
 */

export { toMcpResult } from "./result_mapping.ts";
export { fromMcpResult } from "../extensions/inbound_result.ts";
export type { InboundOptions } from "../extensions/inbound_result.ts";
export { evalToolSource } from "./tool_source.ts";
export type { ToolSource } from "./tool_source.ts";
export { createMcpServer, MAX_CALLS_IN_FLIGHT } from "./server.ts";
export type { McpServerOptions, ToolhostMcpServer } from "./server.ts";
export { serveStdio } from "./stdio.ts";
export type { StdioOutcome, StdioServeOptions } from "./stdio.ts";
export { MAX_BODY_BYTES, MCP_PATH, startHttpServer } from "./http.ts";
export type { HttpMcpServer, HttpServeOptions } from "./http.ts";
export {
  checkBind,
  checkRequest,
  isLoopbackHost,
  loopbackOrigins,
  parseBind,
} from "./http_guard.ts";
export type { BindAddress, GuardPolicy, Refusal } from "./http_guard.ts";
export { ExtensionHost, MCP_TOOL_NAME } from "../extensions/host.ts";
export type { ExtensionHostOptions } from "../extensions/host.ts";
export { ExtensionCallError, ExtensionServer } from "../extensions/extension_server.ts";
export type { ExtensionReadiness, ExtensionServerOptions } from "../extensions/extension_server.ts";
export { ProcessGroupTransport } from "../extensions/group_transport.ts";
export type { GroupTransportOptions } from "../extensions/group_transport.ts";
export { envelopeMapper } from "../extensions/envelope.ts";
export { checkExtensions } from "../extensions/readiness.ts";
