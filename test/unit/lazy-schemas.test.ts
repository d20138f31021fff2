/**
 * Response serializers of equal schemas are compiled once and shared (#33 item 5: 477 per-route
 * serializers, most of them the same error envelopes, held most of the idle process's heap);
 * different schemas still get their own, and every one is still compiled lazily.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LazySchemas } from '../../src/http/lazy-schemas.js';

test('routes with equal response schemas share one compiled serializer; a different schema gets its own', () => {
  const built: unknown[] = [];
  const base = () => (route: unknown) => {
    built.push(route);
    const { schema } = route as { schema: { title: string } };
    return ((data: unknown) => `${schema.title}:${JSON.stringify(data)}`) as never;
  };
  const schemas = new LazySchemas();
  const compilerOf = schemas.serializers(base as never);
  const compile = compilerOf({}, {});
  const envelope = () => ({ title: 'error', type: 'object', properties: { code: { type: 'string' } } });
  const a = compile({ schema: envelope(), method: 'GET', url: '/a', httpStatus: '404' }) as (d: unknown) => string;
  const b = compile({ schema: envelope(), method: 'POST', url: '/b', httpStatus: '404' }) as (d: unknown) => string;
  const c = compile({ schema: { title: 'book', type: 'object' }, method: 'GET', url: '/c', httpStatus: '200' }) as (d: unknown) => string;
  assert.equal(built.length, 0, 'nothing is compiled before use');
  assert.equal(a, b, 'the same function for the same schema');
  assert.notEqual(a, c);
  assert.equal(a({ code: 'x' }), 'error:{"code":"x"}');
  assert.equal(b({ code: 'y' }), 'error:{"code":"y"}');
  assert.equal(built.length, 1, 'the shared schema compiled once');
  assert.equal(schemas.compileAll(), 1, 'only the unshared schema is left to compile');
  assert.equal(c({}), 'book:{}');
  assert.equal(built.length, 2);
});

test('routes with equal validator schemas for the same request part share one Ajv validator, which still reports each call its own errors', async () => {
  const { AjvCompiler } = await import('@fastify/ajv-compiler');
  const buildValidator = AjvCompiler() as unknown as (e: unknown, o: unknown) => (r: unknown) => unknown;
  let compiled = 0;
  const counting = ((ext: unknown, opts: unknown) => {
    const build = buildValidator(ext, opts);
    return (route: unknown) => {
      compiled++;
      return build(route);
    };
  }) as never;
  const schemas = new LazySchemas();
  const compile = schemas.validators(counting)({}, { customOptions: {} }) as (route: unknown) => ((d: unknown) => boolean) & { errors?: { instancePath: string }[] | null };
  const id = () => ({ type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: '^[a-z]+$' } } });
  const a = compile({ schema: id(), method: 'GET', url: '/a/:id', httpPart: 'params' });
  const b = compile({ schema: id(), method: 'DELETE', url: '/b/:id', httpPart: 'params' });
  const q = compile({ schema: id(), method: 'GET', url: '/c', httpPart: 'querystring' });
  assert.equal(a, b, 'one validator for the same schema and part');
  assert.notEqual(a, q, 'another part gets its own');
  assert.equal(compiled, 0, 'nothing is compiled before use');
  assert.equal(a({ id: 'x1' }), false);
  assert.equal(a.errors?.[0]?.instancePath, '/id');
  assert.equal(b({ id: 'ok' }), true);
  assert.equal(b.errors ?? null, null, "a passing call does not show the previous call's errors");
  assert.equal(compiled, 1);
  assert.equal(schemas.compileAll(), 1);
  assert.equal(q({}), false);
  assert.equal(compiled, 2);
});
