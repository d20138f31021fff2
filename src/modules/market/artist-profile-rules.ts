import { invalid } from '../../http/errors.js';

/**
 * What an editor may write into an artist profile. The schema bounds lengths and types; these
 * rules are the ones JSON Schema cannot say well, each failing with 400 invalid_request naming
 * the field. Values are stored as sent (URLs in their normalized form): the service never
 * renders them, clients must treat every field as plain text.
 */

export const BIO_MAX = 2000;
export const NAME_MAX = 200;
export const URL_MAX = 300;

export const EDITABLE_FIELDS = ['bio', 'website', 'x_url', 'name'] as const;
export type EditableField = (typeof EDITABLE_FIELDS)[number];
export type ProfilePatch = Partial<Record<EditableField, string | null>>;

/** X (Twitter) profile hosts accepted in `x_url`. */
const X_HOSTS = new Set(['x.com', 'www.x.com', 'twitter.com', 'www.twitter.com']);

/**
 * C0 and C1 controls and DEL, plus the Unicode bidirectional overrides and isolates (a bio that
 * reorders the text around it could pass one name off as another). A bio may hold line feeds.
 */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;
const CONTROL_OR_NEWLINE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

function plainText(field: string, value: string, allowNewlines: boolean): string {
  if ((allowNewlines ? CONTROL : CONTROL_OR_NEWLINE).test(value)) {
    throw invalid(`${field} must be plain text: control characters${allowNewlines ? ' other than line feed' : ''} are refused`, { field: `body.${field}` });
  }
  return value;
}

function httpsUrl(field: string, value: string, hosts?: Set<string>): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`${field} must be an absolute https URL`, { field: `body.${field}` });
  }
  if (url.protocol !== 'https:') throw invalid(`${field} must be an https URL`, { field: `body.${field}` });
  if (url.username || url.password) throw invalid(`${field} must not carry credentials`, { field: `body.${field}` });
  if (hosts && !hosts.has(url.hostname)) throw invalid(`${field} must be on x.com or twitter.com`, { field: `body.${field}` });
  if (hosts && (url.pathname === '/' || url.pathname === '')) throw invalid(`${field} must name a profile, e.g. https://x.com/handle`, { field: `body.${field}` });
  if (url.href.length > URL_MAX) throw invalid(`${field} is longer than ${URL_MAX} characters`, { field: `body.${field}` });
  return url.href;
}

/** Checks and normalizes each field present; `null` clears a field (`name`: back to the credit). */
export function checkPatch(patch: ProfilePatch): ProfilePatch {
  const out: ProfilePatch = {};
  if (patch.bio !== undefined) out.bio = patch.bio === null ? null : plainText('bio', patch.bio, true);
  if (patch.website !== undefined) out.website = patch.website === null ? null : httpsUrl('website', patch.website);
  if (patch.x_url !== undefined) out.x_url = patch.x_url === null ? null : httpsUrl('x_url', patch.x_url, X_HOSTS);
  if (patch.name !== undefined) {
    if (patch.name !== null) {
      plainText('name', patch.name, false);
      if (patch.name.trim() !== patch.name || patch.name === '') throw invalid('name must not be blank or start or end with spaces', { field: 'body.name' });
    }
    out.name = patch.name;
  }
  if (Object.keys(out).length === 0) throw invalid('name at least one of bio, website, x_url or name to change', { field: 'body' });
  return out;
}
