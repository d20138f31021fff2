/**
 * Artist profiles: the public reads (a profile, its credited assets) and the self-service edit by
 * an eligible address (the issuer of a credited asset or a catalogue-named editor). An edit names
 * the version it read: a concurrent edit makes it 409 `state_changed`, never a silent overwrite.
 */
import { items } from './paging.js';
import type { Routes } from './generated/api.js';
import type { Transport } from './transport.js';

export type ProfileEdit = Routes['PATCH /v1/artists/{key}/profile']['body'];

export class Artists {
  constructor(private readonly http: Transport) {}

  /** One artist's public profile, with its `version`. */
  async get(key: string) {
    return (await this.http.call('GET /v1/artists/{key}', { params: { key } })).result;
  }

  /** Every asset credited to the artist, every page. */
  assets(key: string) {
    return items((cursor) => this.http.call('GET /v1/artists/{key}/assets', { params: { key }, query: { ...(cursor ? { cursor } : {}) } }).then((r) => r.body));
  }

  /** Whether the signed-in address may edit the profile, on what grounds, and which fields. */
  async eligibility(key: string) {
    return (await this.http.call('GET /v1/artists/{key}/profile/eligibility', { params: { key } })).result;
  }

  /** Edits the profile at the version read (`edit.version`). */
  async edit(key: string, edit: ProfileEdit) {
    return (await this.http.call('PATCH /v1/artists/{key}/profile', { params: { key }, body: edit })).result;
  }
}
