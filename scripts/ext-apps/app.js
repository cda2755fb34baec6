// The app side of MCP Apps, for the terminal app agentty serves as ui://agentty/terminal.
import { App, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-with-deps";
globalThis.McpApps = { App, PostMessageTransport };
