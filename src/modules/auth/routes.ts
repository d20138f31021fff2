import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { Ok, errorResponses } from '../../http/envelope.js';
import { Address, UnixSeconds } from '../../http/validators.js';
import { AuthService } from './service.js';

const ChallengeId = Type.String({ pattern: '^[A-Za-z0-9_-]{22}$', description: 'challenge id from POST /v1/auth/challenge (22 base64url characters)' });

const Signature = Type.String({ minLength: 1, maxLength: 4096, pattern: '^[A-Za-z0-9+/=]+$', description: 'base64 message signature' });

const Verification = Type.Object(
  {
    method: Type.Union([Type.Literal('BIP-322'), Type.Literal('BIP-137')], { description: 'BIP-322 (default) or BIP-137' }),
    // The spec gives `format` as a string: wallets name their encodings, and an unknown name must not
    // refuse a proof the verifier can read (the signature's own bytes say which encoding it is).
    format: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[A-Za-z0-9_.-]+$',
        description: 'the signature encoding as the wallet names it: BIP-322 `simple` or `full` (others read as the signature bytes say); BIP-137 `legacy_recoverable`',
      }),
    ),
  },
  { additionalProperties: false },
);

const SessionResult = Type.Object({
  token: Type.String({ description: 'Send as x-session-token. Lasts 24 hours; store it like a password.' }),
  address: Type.String(),
  expires_at: UnixSeconds,
});

const tags = ['auth'];

export function authRoutes(app: App, ctx: Context): void {
  const auth = new AuthService(ctx);

  app.post(
    '/v1/auth/challenge',
    {
      config: { limit: 'sign_in' },
      schema: {
        tags,
        summary: 'Ask for a sign-in challenge',
        description:
          'Returns the exact text to sign (newlines included) and the challenge\'s `challenge_id`. A challenge lives 10 minutes and can be used once. Any number of challenges may be open for one address at once (asking for one never uses up anyone else\'s), within the per-IP sign-in budget.',
        body: Type.Object({ address: Address }, { additionalProperties: false }),
        response: {
          200: Ok(
            Type.Object({
              challenge_id: Type.String({ description: 'Names this challenge; send it back to /v1/auth/verify (optional there, recommended)' }),
              address: Type.String(),
              message: Type.String(),
              issued_at: UnixSeconds,
              expires_at: UnixSeconds,
            }),
          ),
          ...errorResponses,
        },
      },
    },
    async (req) => ({ result: await auth.challenge(req.body.address) }),
  );

  app.post(
    '/v1/auth/verify',
    {
      config: { limit: 'sign_in' },
      schema: {
        tags,
        summary: 'Sign in with a signed challenge',
        description:
          'Send the challenge `issued_at` and the base64 signature of its exact `message`, and preferably its `challenge_id` (without it, the challenges issued to the address in that second are tried). BIP-322 is the default; a BIP-137 recoverable signature must declare `verification {method: "BIP-137", format: "legacy_recoverable"}`. P2PKH addresses also accept a classic 65-byte recoverable signature. A wrong key, a changed message, or a used or expired challenge give 401 signature_invalid.',
        body: Type.Object(
          { address: Address, issued_at: UnixSeconds, signature: Signature, verification: Type.Optional(Verification), challenge_id: Type.Optional(ChallengeId) },
          { additionalProperties: false },
        ),
        response: { 200: Ok(SessionResult), ...errorResponses },
      },
    },
    async (req) => ({ result: await auth.verify(req.body) }),
  );

  app.post(
    '/v1/auth/session',
    {
      config: { limit: 'sign_in' },
      schema: {
        tags,
        summary: 'Sign in with a connect-time proof',
        description:
          'For browser wallets: a message in the challenge format (`<domain> wants you to sign in with your Bitcoin account:`, the address on the next line, `URI: <origin>` and `Issued At: <ISO 8601>` lines) signed at connect time. The proof must be at most five minutes old, bound to an origin the market allows (configured by the operator) and is accepted once.',
        body: Type.Object(
          { address: Address, message: Type.String({ minLength: 1, maxLength: 4096 }), signature: Signature, verification: Verification },
          { additionalProperties: false },
        ),
        response: { 200: Ok(SessionResult), ...errorResponses },
      },
    },
    async (req) => ({ result: await auth.connect(req.body) }),
  );
}
