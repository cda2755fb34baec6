// The host side of MCP Apps, for the test host in cmd/agentty/testdata/apphost.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
globalThis.McpHost = { AppBridge, PostMessageTransport };
