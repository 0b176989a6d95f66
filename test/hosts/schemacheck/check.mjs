// Compiles every tool schema run-mcp's agent server lists, the way hosts
// do, and lists the tools as two real clients see them. Usage:
//
//   node check.mjs <run-mcp> [run-mcp flags...]
//
// The TypeScript SDK v1 client (@modelcontextprotocol/sdk) and v2 client
// (@modelcontextprotocol/client) each start run-mcp and list its tools
// (each checks the tools/list result against its own schema). Every
// inputSchema is then compiled with Ajv's defaults (new Ajv(): strict, no
// formats), Ajv with ajv-formats, Ajv2020's defaults, and each SDK's own
// validator, and a few arguments are validated with each.
//
// Each line written to stdout is one JSON object: {"client", "tools"} per
// client, {"validator", "tool", "error"} for a schema that does not
// compile, {"validator", "tool", "warning"} for what a validator logged
// while compiling it, {"validator", "tool", "args", "valid"} per argument
// check, and {"done": true} last.
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AjvJsonSchemaValidator as ValidatorV1 } from '@modelcontextprotocol/sdk/validation/ajv';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { AjvJsonSchemaValidator as ValidatorV2 } from '@modelcontextprotocol/client/validators/ajv';

const [command, ...args] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');

async function listWith(name, Client, Transport, options) {
  const client = new Client({ name: `schemacheck-${name}`, version: '1.0.0' }, options);
  await client.connect(new Transport({ command, args, stderr: 'ignore' }), { timeout: 60000 });
  const { tools } = await client.listTools();
  await client.close();
  out({ client: name, tools: tools.map((t) => t.name) });
  return tools;
}

// Validators, each as a host would build it: compile(schema) returns a
// function of the arguments that says whether they are valid.
const ajvCompile = (ajv) => (schema) => {
  const v = ajv.compile(schema);
  return (data) => v(data);
};
const sdkCompile = (validator) => (schema) => {
  const v = validator.getValidator(schema);
  return (data) => v(data).valid;
};
const validators = {
  'ajv defaults': () => ajvCompile(new Ajv()),
  'ajv with ajv-formats': () => {
    const ajv = new Ajv();
    addFormats(ajv);
    return ajvCompile(ajv);
  },
  'ajv2020 defaults': () => ajvCompile(new Ajv2020()),
  'sdk v1 validator': () => sdkCompile(new ValidatorV1()),
  'sdk v2 validator': () => sdkCompile(new ValidatorV2()),
};

// Arguments each compiled validator must judge as run-mcp does.
const argChecks = [
  { tool: 'connect_to_mcp', args: { command: 'node', name: 'api' }, valid: true },
  { tool: 'connect_to_mcp', args: { command: 'node', name: 'a\u001b[31mb' }, valid: false },
  { tool: 'connect_to_mcp', args: { command: 'node', name: '' }, valid: false },
  { tool: 'connect_to_mcp', args: { command: 'node', roots: [{ uri: 'file:///tmp/x' }] }, valid: true },
  { tool: 'connect_to_mcp', args: { command: 'node', roots: [{ uri: '/tmp/x' }] }, valid: false },
  { tool: 'connect_to_mcp', args: { command: 'node', env: { 'BAD-KEY': 'v' } }, valid: false },
  { tool: 'get_mcp_server_stderr', args: { lines: 0 }, valid: false },
  { tool: 'call_mcp_primitive', args: { type: 'task', name: 'task-1', cancel: true }, valid: true },
  { tool: 'call_mcp_primitive', args: { type: 'tool', name: 'echo', task: { wait: false } }, valid: true },
];

function check(tools) {
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const [vname, make] of Object.entries(validators)) {
    const compile = make();
    const compiled = new Map();
    for (const t of tools) {
      const logged = [];
      const saved = { warn: console.warn, log: console.log, error: console.error };
      console.warn = console.log = console.error = (...a) => logged.push(a.map(String).join(' '));
      try {
        compiled.set(t.name, compile(t.inputSchema));
      } catch (e) {
        out({ validator: vname, tool: t.name, error: String(e?.message ?? e) });
      } finally {
        Object.assign(console, saved);
      }
      for (const w of logged) out({ validator: vname, tool: t.name, warning: w });
    }
    for (const c of argChecks) {
      const v = compiled.get(c.tool);
      if (v && byName.has(c.tool)) out({ validator: vname, tool: c.tool, args: c.args, valid: v(c.args), want: c.valid });
    }
  }
}

const v1 = await listWith('sdk v1', ClientV1, StdioV1, { capabilities: {} });
await listWith('sdk v2', ClientV2, StdioV2, { capabilities: {} });
check(v1);
out({ done: true });
