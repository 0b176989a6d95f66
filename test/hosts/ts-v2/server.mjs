// A dual-era target built on the TypeScript SDK v2 (serveStdio serves the
// 2026-07-28 era and the legacy handshake from the same factory). Its
// confirm-deploy asks for a confirmation and ask-model for a completion, both
// through input_required (the SDK bridges them to real requests for a legacy
// client).
import { McpServer, inputRequired, acceptedContent, inputResponse } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

serveStdio(() => {
  const server = new McpServer({ name: 'ts-v2-dual-era', version: '2.4.0' }, { capabilities: { tools: {} } });
  server.registerTool('echo', { description: 'Echo a message.', inputSchema: z.object({ message: z.string() }) },
    async ({ message }) => ({ content: [{ type: 'text', text: `echo: ${message}` }] }));
  const confirm = z.object({ confirm: z.boolean().default(true).describe('Deploy now?') });
  server.registerTool('confirm-deploy', { description: 'Deploy after a confirmation.', inputSchema: z.object({ env: z.string() }) },
    async ({ env }, ctx) => {
      const view = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
      if (view.kind === 'elicit' && view.action !== 'accept') {
        return { content: [{ type: 'text', text: `not deployed to ${env}: ${view.action}` }] };
      }
      const got = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', confirm);
      if (got === undefined) {
        return inputRequired({ inputRequests: { confirm: inputRequired.elicit({ message: `Deploy to ${env}? Confirm below.`, requestedSchema: confirm }) } });
      }
      return { content: [{ type: 'text', text: got.confirm ? `deployed to ${env}` : `not deployed to ${env}` }] };
    });
  server.registerTool('ask-model', { description: 'Ask the client model a question.', inputSchema: z.object({ question: z.string() }) },
    async ({ question }, ctx) => {
      const view = inputResponse(ctx.mcpReq.inputResponses, 'answer');
      if (view.kind === 'sampling') {
        const c = view.result.content;
        return { content: [{ type: 'text', text: `the model answered: ${c.type === 'text' ? c.text : c.type}` }] };
      }
      return inputRequired({ inputRequests: { answer: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: question } }], maxTokens: 50 }) } });
    });
  return server;
});
