// The official TypeScript MCP client drives an MCP server through one
// python REPL round trip, for TestDist_NPM. Usage:
//   node npm-client.mjs SDK_DIR '{"command": ..., "args": [...]}'
// It starts the server as an mcp.json entry says (in its own directory)
// and prints one JSON line: the structured results of start_process and
// send_input.
const [sdk, entry] = process.argv.slice(2);
const { Client } = await import(`${sdk}/dist/esm/client/index.js`);
const { StdioClientTransport } = await import(`${sdk}/dist/esm/client/stdio.js`);
const { command, args } = JSON.parse(entry);

const client = new Client({ name: "npm-test", version: "1" });
const transport = new StdioClientTransport({ command, args, cwd: process.cwd(), env: process.env, stderr: "inherit" });
await client.connect(transport);
const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
  return r.structuredContent;
};
const started = await call("start_process", { argv: ["python3", "-q"] });
const reply = await call("send_input", { session_id: started.session_id, text: "6 * 7", enter: true });
await call("terminate_process", { session_id: started.session_id });
await client.close();
console.log(JSON.stringify({ server: client.getServerVersion(), started, reply }));
