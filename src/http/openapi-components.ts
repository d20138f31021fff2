/**
 * The OpenAPI document as integrators use it, finished after @fastify/swagger built it from
 * the route schemas:
 *
 * - Shared schemas become named components referenced by `$ref`. A TypeBox schema is shared by
 *   giving it a `title` from SHARED_COMPONENTS (e.g. `Type.Object({...}, { title: 'Outpoint' })`);
 *   validation is untouched (a title is an annotation), and every place the same schema is
 *   inlined becomes one `$ref` (a copy that only changed its description keeps that description
 *   beside the `$ref`). Without this the error envelope alone was repeated twice per route.
 * - A query parameter or body field with a default is not `required` (the server fills it in).
 * - The main routes carry the realistic examples of openapi-examples.ts.
 */

import { EXAMPLES } from './openapi-examples.js';

/** Titles that name components. A new shared schema adds its title here and on its TypeBox schema. */
export const SHARED_COMPONENTS = [
  'ErrorEnvelope',
  'Outpoint',
  'Address',
  'Txid',
  'Vout',
  'Sats',
  'PositiveSats',
  'PsbtHex',
  'AssetId',
  'QuantityRaw',
  'UnixSeconds',
  'ListingDraft',
  'ListingTemplate',
  'ListingProtocolSubtype',
  'CosignedOutput',
  'BookListing',
  'TargetListing',
  'Fill',
  'CheckoutQuote',
  'OfferTarget',
  'PolicyOffer',
  'PolicyPreflight',
  'PolicyFundingSet',
  'PolicyAcceptQuote',
  'PolicyAcceptRecord',
  'PolicyAlternativeIn',
  'CancelReceipt',
  'PublicLogEntry',
  'OwnerLogEntry',
  'WebhookEndpoint',
  'WebhookEndpointWithSecret',
  'WebhookDelivery',
] as const;

/** Keywords that only annotate: a copy differing only in these is the same component. */
const ANNOTATIONS = new Set(['description', 'examples', 'example', 'default', 'deprecated', 'readOnly', 'writeOnly']);

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function structure(schema: Json): string {
  const keys = Object.keys(schema).filter((k) => !ANNOTATIONS.has(k)).sort();
  return JSON.stringify(keys.map((k) => [k, schema[k]]));
}

/** Replaces named schemas by `$ref`s (innermost first, so components reference each other). */
function extract(node: unknown, components: Record<string, Json>, shapes: Map<string, string>, names: ReadonlySet<string>): unknown {
  if (Array.isArray(node)) return node.map((n) => extract(n, components, shapes, names));
  if (!isObj(node)) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = extract(v, components, shapes, names);
  const title = typeof out.title === 'string' ? out.title : null;
  if (!title || !names.has(title)) return out;
  const shape = structure(out);
  const known = shapes.get(title);
  if (known === undefined) {
    components[title] = out;
    shapes.set(title, shape);
  } else if (known !== shape) {
    return out; // a different schema under the same title stays inline
  }
  const ref: Json = { $ref: `#/components/schemas/${title}` };
  const base = components[title]!;
  for (const k of ANNOTATIONS) if (k in out && JSON.stringify(out[k]) !== JSON.stringify(base[k])) ref[k] = out[k];
  return ref;
}

/** Drops fields with a default from `required` (query parameters and inline object schemas). */
function defaultsAreOptional(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(defaultsAreOptional);
  if (!isObj(node)) return;
  if (node.in === 'query' && isObj(node.schema) && 'default' in node.schema) node.required = false;
  if (Array.isArray(node.required) && isObj(node.properties)) {
    const props = node.properties;
    node.required = node.required.filter((k) => !(isObj(props[k as string]) && 'default' in (props[k as string] as Json)));
    if ((node.required as unknown[]).length === 0) delete node.required;
  }
  for (const v of Object.values(node)) defaultsAreOptional(v);
}

/** Puts the examples of openapi-examples.ts on their operations. */
function addExamples(paths: Json): void {
  for (const [key, ex] of Object.entries(EXAMPLES)) {
    const [method, path] = key.split(' ') as [string, string];
    const op = (paths[path] as Json | undefined)?.[method.toLowerCase()];
    if (!isObj(op)) continue;
    const json = (holder: unknown) => ((holder as { content?: Record<string, Json> } | undefined)?.content?.['application/json']);
    const body = json(op.requestBody);
    if (ex.body !== undefined && body) body.example = ex.body;
    const ok = json((op.responses as Json | undefined)?.['200']);
    if (ex.response !== undefined && ok) ok.example = ex.response;
    for (const param of Array.isArray(op.parameters) ? (op.parameters as Json[]) : []) {
      if (param.in === 'query' && ex.query && typeof param.name === 'string' && param.name in ex.query) param.example = ex.query[param.name];
    }
  }
}

/** The one named response every failure of every operation references. */
export const ERROR_RESPONSE = 'Error';
const ERROR_SCHEMA_REF = '#/components/schemas/ErrorEnvelope';

/**
 * Every failure response of every operation (4XX, 5XX and each documented status) as a
 * `$ref` to `components.responses.Error`; a status with its own text (`404: unknown collection
 * slug`) keeps it beside the `$ref`, which OpenAPI 3.1 allows. Inline, the envelope's response
 * object was repeated on every operation.
 */
function errorsAsOneResponse(paths: Json, components: Json): void {
  let shared: Json | null = null;
  for (const ops of Object.values(paths)) {
    if (!isObj(ops)) continue;
    for (const op of Object.values(ops)) {
      const responses = isObj(op) && isObj(op.responses) ? op.responses : null;
      if (!responses) continue;
      for (const [status, r] of Object.entries(responses)) {
        const schema = isObj(r) ? ((r.content as Record<string, Json> | undefined)?.['application/json']?.schema as Json | undefined) : undefined;
        if (!isObj(r) || !isObj(schema) || schema.$ref !== ERROR_SCHEMA_REF) continue;
        shared ??= { description: String(r.description ?? 'The error envelope'), content: { 'application/json': { schema: { $ref: ERROR_SCHEMA_REF } } } };
        const ref: Json = { $ref: `#/components/responses/${ERROR_RESPONSE}` };
        if (r.description !== shared.description) ref.description = r.description;
        responses[status] = ref;
      }
    }
  }
  if (shared) components.responses = { ...(isObj(components.responses) ? components.responses : {}), [ERROR_RESPONSE]: shared };
}

/** `transformObject` for @fastify/swagger. */
export function finishDocument(doc: Json): Json {
  const components = (isObj(doc.components) ? doc.components : {}) as Json;
  const schemas = (isObj(components.schemas) ? components.schemas : {}) as Record<string, Json>;
  const shapes = new Map<string, string>();
  const paths = extract(doc.paths, schemas, shapes, new Set(SHARED_COMPONENTS)) as Json;
  defaultsAreOptional(paths);
  addExamples(paths);
  const out: Json = { ...components, schemas };
  errorsAsOneResponse(paths, out);
  return { ...doc, paths, components: out };
}
