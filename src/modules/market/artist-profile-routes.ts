import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { ErrorEnvelope, Ok, errorResponses } from '../../http/envelope.js';
import { Nullable } from '../../http/validators.js';
import { sessionSecurity } from '../../http/security.js';
import { requireSession } from '../auth/index.js';
import { ArtistProfileService } from './artist-profile-service.js';
import { ArtistProfileStore } from './artist-profile-store.js';
import { BIO_MAX, NAME_MAX, URL_MAX } from './artist-profile-rules.js';
import { ArtistsStore } from './artists-store.js';
import { ArtistKey, artistsServiceOf } from './artists-routes.js';

const tags = ['market'];
const security = sessionSecurity;
const config = { limit: 'artist_edit', cache: 'no-store' } as const;

const WHO =
  'An address may edit a curated artist’s profile when it holds, now, the Counterparty issuance rights (the asset’s current issuer, read from Counterparty at each request) of at least one asset credited to the artist in the catalogue (curated corrections included), or when the operator names it an editor of that artist in the catalogue. Credits do not verify artist identity: the issuer of a credited asset is trusted for the profile, nothing more. An uncurated credit (`~` key with no curated profile) has no profile to edit.';
const LIMIT = 'Session required (401 unauthenticated without one). The check and the edit share one rate budget (`artist_edit`): 6 per 60 s per session address, 30 per IP; 429 rate_limited past it. Never cached.';

const Field = Type.Union([Type.Literal('bio'), Type.Literal('website'), Type.Literal('x_url'), Type.Literal('name')]);

const EligibilityResult = Type.Object(
  {
    key: Type.String({ description: 'Canonical key of the artist' }),
    id: Nullable(Type.String({ description: 'Curated artist id; null for an uncurated credit' })),
    address: Type.String({ description: 'The session address the answer is for' }),
    eligible: Type.Boolean({ description: 'true when the session address may edit the profile now' }),
    grounds: Type.Array(Type.Union([Type.Literal('catalogue_editor'), Type.Literal('issuer')]), {
      description: 'Why it may edit: `catalogue_editor` (named by the operator), `issuer` (holds the issuance rights of `issued_assets`); empty when not eligible',
    }),
    reason: Nullable(Type.Union([Type.Literal('not_curated'), Type.Literal('not_issuer')], {
      description: 'Why it may not: `not_curated` (no curated profile to edit) or `not_issuer` (no credited asset issued by it and not a named editor); null when eligible',
    })),
    issued_assets: Type.Array(Type.String(), { description: 'Credited assets whose issuance rights the session address holds now, sorted' }),
    credited_assets: Type.Integer({ minimum: 0, description: 'Distinct assets credited to the artist' }),
    editable_fields: Type.Array(Field, { description: 'Fields an edit may change; `name` only where the catalogue allows display-name edits; empty when not eligible' }),
    version: Nullable(Type.Integer({ minimum: 1, description: 'Current profile version, to send with an edit; null for an uncurated credit' })),
  },
  {
    additionalProperties: false,
    examples: [
      {
        key: 'mondo-pepe', id: '3f1c0e9a2b7d4c55', address: 'bc1qexampleaddress0000000000000000000000', eligible: true, grounds: ['issuer'], reason: null,
        issued_assets: ['PEPEGENESIS'], credited_assets: 2, editable_fields: ['bio', 'website', 'x_url'], version: 3,
      },
    ],
  },
);

/**
 * A string or null, as one JSON Schema type list rather than a union: the app's validator
 * coerces types, and a union's string branch would turn null into "" before the null branch is tried.
 */
const StringOrNull = (opts: { minLength?: number; maxLength: number; description: string }) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...opts });
const Text = (max: number, description: string) => Type.Optional(StringOrNull({ maxLength: max, description }));

const EditBody = Type.Object(
  {
    version: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'the profile version the editor read (GET /v1/artists/{key} or the check)' }),
    bio: Text(BIO_MAX, `plain text, at most ${BIO_MAX} characters; line feeds allowed, other control characters and bidirectional overrides refused; null clears it`),
    website: Text(URL_MAX, `an https URL without credentials, at most ${URL_MAX} characters; stored normalized; null clears it`),
    x_url: Text(URL_MAX, 'an https URL of a profile on x.com or twitter.com (www. allowed); stored normalized; null clears it'),
    name: Type.Optional(StringOrNull({ minLength: 1, maxLength: NAME_MAX, description: `display name, 1 to ${NAME_MAX} characters, no control characters, no leading or trailing spaces; only where the catalogue allows it; null shows the credit again` })),
  },
  {
    additionalProperties: false,
    description: 'The version read and at least one field to change. An absent field is left as it is.',
    examples: [{ version: 3, bio: 'Painter of frogs since 2016.', website: 'https://example.org/', x_url: 'https://x.com/mondopepe' }],
  },
);

const EditResult = Type.Object(
  {
    key: Type.String(),
    id: Type.String(),
    name: Type.String({ description: 'Display name after the edit' }),
    bio: Nullable(Type.String()),
    website: Nullable(Type.String()),
    x_url: Nullable(Type.String()),
    version: Type.Integer({ minimum: 1, description: 'The new version (unchanged when nothing changed)' }),
    changed: Type.Array(Field, { description: 'Fields whose value changed; empty when the edit changed nothing (no new version, nothing recorded)' }),
  },
  {
    additionalProperties: false,
    examples: [{ key: 'mondo-pepe', id: '3f1c0e9a2b7d4c55', name: 'Mondo Pepe', bio: 'Painter of frogs since 2016.', website: 'https://example.org/', x_url: 'https://x.com/mondopepe', version: 4, changed: ['bio', 'x_url'] }],
  },
);

const NotFound = { ...ErrorEnvelope, description: 'not_found: unknown or ambiguous artist key' };
const Forbidden = { ...ErrorEnvelope, description: 'forbidden: the session address may not edit this profile; `reason` is `not_curated`, `not_issuer` or `name_not_editable`' };
const Stale = { ...ErrorEnvelope, description: 'state_changed: `version` is not the current one (another edit won); `current_version` carries it. Re-read the profile and edit again' };
const Unauthenticated = { ...ErrorEnvelope, description: 'unauthenticated: no session, or an unknown or expired token' };

/** The account side of artist profiles: the eligibility check and the edit (issue 19). */
export function artistProfileRoutes(app: App, ctx: Context): void {
  const db = ctx.store.db;
  const service = new ArtistProfileService(artistsServiceOf(ctx), new ArtistsStore(db), new ArtistProfileStore(db), ctx.chain.counterparty, () => ctx.clock.now());
  const params = Type.Object({ key: ArtistKey });

  app.get(
    '/v1/artists/:key/profile/eligibility',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'May the session address edit this artist’s profile?',
        description: `Answers, for the session address, whether it may edit the artist’s profile now and why: its grounds and the credited assets whose issuance rights it holds, or the reason it may not. Changes nothing. ${WHO} 404 not_found for an unknown or ambiguous key. An unreachable Counterparty backend answers 502/503 upstream_unavailable (retry later). ${LIMIT}`,
        params,
        response: { 200: Ok(EligibilityResult), 401: Unauthenticated, 404: NotFound, ...errorResponses },
      },
    },
    async (req) => ({ result: await service.check(req.params.key, requireSession(req)) }),
  );

  app.patch(
    '/v1/artists/:key/profile',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Edit an artist’s profile',
        description: `Changes \`bio\`, \`website\`, \`x_url\` and, where the catalogue allows it, the display \`name\` of a curated artist. ${WHO} Optimistic concurrency: send the \`version\` you read; if the profile moved on since (another edit, or a catalogue import), 409 state_changed with \`current_version\` and nothing is written. A successful edit bumps \`version\` by one and is recorded (editor, time, grounds, each field’s old and new value) for the operator (\`npm run artist:edits\`); the write and its record are one transaction. An edit that changes nothing keeps the version and records nothing. Checks in order: the body (400 invalid_request naming the field: an unknown field, a bio with control characters or too long, a URL that is not https, an x_url off x.com/twitter.com), the key (404 not_found, unknown or ambiguous), eligibility (403 forbidden with \`reason\`: \`not_curated\`, \`not_issuer\`, or \`name_not_editable\` when \`name\` is sent where the catalogue does not allow it), then the version (409). Public reads of the artist (GET /v1/artists, /v1/artists/{key}) show the edit within their 30-second cache window. ${LIMIT}`,
        params,
        body: EditBody,
        response: { 200: Ok(EditResult), 401: Unauthenticated, 403: Forbidden, 404: NotFound, 409: Stale, ...errorResponses },
      },
    },
    async (req) => {
      const { version, ...patch } = req.body;
      return { result: await service.edit(req.params.key, requireSession(req), version, patch) };
    },
  );
}
