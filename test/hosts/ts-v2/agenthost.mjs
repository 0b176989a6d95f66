// A host that drives run-mcp's agent server with calls in flight at once,
// as a coding agent with parallel tool calls does, on the TypeScript SDK v2
// client. Usage:
//
//   node agenthost.mjs <run-mcp> [run-mcp flags...]
//
// Environment: HOST_PIN is the revision the host speaks (default
// 2026-07-28; a 2025 revision makes it a 2025 host); HOST_DELAY_MS is how long the
// "person" takes to answer each form.
//
// stdin is a JSON array of phases; each phase is an array of calls made at
// once ({"tool", "arguments"}), and a phase starts when the one before has
// ended. Each line written to stdout is one JSON object: {"phase", "call",
// "result"} or {"phase", "call", "error"}, {"elicitation": message} for
// every form the host was shown, and finally {"era", "protocol"}.
//
// A form is accepted with its defaults, except that a question ending in
// "[label]" gets the label as its name: a call's answer then shows whether
// it got its own question's answer.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [command, ...args] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const pin = process.env.HOST_PIN || '2026-07-28';
const delay = Number(process.env.HOST_DELAY_MS || 0);

let input = '';
for await (const chunk of process.stdin) input += chunk;
const phases = JSON.parse(input || '[]');

const client = new Client(
  { name: 'ts-v2-agent-host', version: '2.4.0' },
  {
    capabilities: { elicitation: { form: {} }, sampling: {} },
    versionNegotiation: { mode: pin.startsWith('2025') ? 'legacy' : { pin } },
  },
);
client.setRequestHandler('elicitation/create', async (req) => {
  const message = req.params.message ?? '';
  out({ elicitation: message });
  if (delay > 0) await new Promise((r) => setTimeout(r, delay));
  const content = {};
  for (const [k, p] of Object.entries(req.params.requestedSchema?.properties ?? {})) {
    if (p && 'default' in p) content[k] = p.default;
    else if (p?.type === 'string') content[k] = 'from the agent host';
  }
  const label = /\[([^\]]+)\]$/.exec(message);
  if (label) content.name = label[1];
  return { action: 'accept', content };
});
client.setRequestHandler('sampling/createMessage', async () => {
  return { model: 'agent-host-model', role: 'assistant', content: { type: 'text', text: 'the agent host model says hello' }, stopReason: 'endTurn' };
});
client.onerror = (e) => out({ clientError: String(e?.message ?? e) });

const transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
await client.connect(transport, { timeout: 60000 });
for (const [p, calls] of phases.entries()) {
  await Promise.all(calls.map(async (c, i) => {
    try {
      const result = await client.callTool({ name: c.tool, arguments: c.arguments ?? {} }, { timeout: 120000 });
      out({ phase: p, call: i, result });
    } catch (e) {
      out({ phase: p, call: i, error: String(e?.message ?? e) });
    }
  }));
}
out({ era: client.getProtocolEra(), protocol: client.getNegotiatedProtocolVersion() });
await client.close();
