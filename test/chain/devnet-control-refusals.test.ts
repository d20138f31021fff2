/**
 * The devnet's control routes when the node a devnet follows refuses a call (Core answers an RPC
 * error to `generatetoaddress` or `invalidateblock`, e.g. a block it mined not accepted while
 * another caller mined beside it: a simulated day on Core 29.2, seed 9151): 409 `state_changed`
 * naming the call and Core's reason, never a 500.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { installErrorHandling } from '../../src/http/error-handler.js';
import { devnetRoutes } from '../../src/modules/devnet/routes.js';
import { DevnetNodeRefused } from '../../src/chain/devnet/usage-error.js';
import type { DevnetControl } from '../../src/chain/devnet-control.js';

void test('a followed node\'s refusal of a control call is 409 state_changed with its reason, for mine and reorg', async () => {
  const refuse = (method: string) => () => Promise.reject(new DevnetNodeRefused(method, 'ProcessNewBlock, block not accepted'));
  const control = { mine: refuse('generatetoaddress'), reorg: refuse('invalidateblock') } as unknown as DevnetControl;
  const app = Fastify().withTypeProvider<TypeBoxTypeProvider>();
  installErrorHandling(app as unknown as FastifyInstance);
  devnetRoutes(app, { network: 'regtest', sync: () => Promise.resolve() }, control);
  try {
    for (const [url, body, method] of [['/devnet/mine', { blocks: 1 }, 'generatetoaddress'], ['/devnet/reorg', { depth: 1 }, 'invalidateblock']] as const) {
      const r = await app.inject({ method: 'POST', url, payload: body });
      assert.equal(r.statusCode, 409, r.body);
      const j = r.json() as { code: string; error: string; method?: string; reason?: string };
      assert.equal(j.code, 'state_changed');
      assert.match(j.error, new RegExp(`the followed node refused ${method}: ProcessNewBlock, block not accepted; read the chain again and retry`));
    }
  } finally {
    await app.close();
  }
});
