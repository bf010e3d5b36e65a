/**
 * The line splitting of MCP's stdio transport without the SDK, shared with the extension
 * transports: lib/extensions/line_buffer.ts (the SDK's `ReadBuffer` up to the parse of a
 * line, in linear time).
 *
 * @module
 */

export { LineBuffer, STDIO_MAX_BUFFER_BYTES } from "../extensions/line_buffer.ts";
