// A 2026-07-28 host: the TypeScript SDK v2 client drives run-mcp's agent
// server over stdio, as a coding agent would. Usage:
//
//   node host.mjs <run-mcp> [run-mcp flags...]
//
// The steps come as a JSON array on stdin: {"tool": name, "arguments": {...}}.
// Each line written to stdout is one JSON object: {"step": i, "result"} or
// {"step": i, "error"}, {"elicitation": params} and {"sampling": params} for
// every request the host answered, and finally {"era", "protocol"}.
// Forms are accepted with their defaults (a string without one gets "from the
// ts-v2 host"); HOST_ELICIT=decline declines them instead.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [command, ...args] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');

let input = '';
for await (const chunk of process.stdin) input += chunk;
const steps = JSON.parse(input || '[]');

const client = new Client(
  { name: 'ts-v2-test-host', version: '2.4.0' },
  {
    capabilities: { elicitation: { form: {} }, sampling: {} },
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  },
);
client.setRequestHandler('elicitation/create', async (req) => {
  out({ elicitation: req.params });
  if (process.env.HOST_ELICIT === 'decline') return { action: 'decline' };
  const content = {};
  for (const [k, p] of Object.entries(req.params.requestedSchema?.properties ?? {})) {
    if (p && 'default' in p) content[k] = p.default;
    else if (p?.type === 'string') content[k] = 'from the ts-v2 host';
  }
  return { action: 'accept', content };
});
client.setRequestHandler('sampling/createMessage', async (req) => {
  out({ sampling: req.params });
  return { model: 'ts-v2-test-model', role: 'assistant', content: { type: 'text', text: 'the v2 model says hello' }, stopReason: 'endTurn' };
});
client.onerror = (e) => out({ clientError: String(e?.message ?? e) });

const transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
await client.connect(transport, { timeout: 60000 });
for (const [i, s] of steps.entries()) {
  try {
    const result = await client.callTool({ name: s.tool, arguments: s.arguments ?? {} }, { timeout: 120000 });
    out({ step: i, result });
  } catch (e) {
    out({ step: i, error: String(e?.message ?? e) });
  }
}
out({ era: client.getProtocolEra(), protocol: client.getNegotiatedProtocolVersion() });
await client.close();
