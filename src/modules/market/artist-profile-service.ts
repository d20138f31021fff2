import type { CounterpartyBackend } from '../../chain/ports.js';
import { ApiError } from '../../http/errors.js';
import { mapPool } from '../../util/pool.js';
import type { ArtistsService } from './artists-service.js';
import { displayNameOf, type ArtistsStore, type CuratedArtist } from './artists-store.js';
import { type ArtistProfileStore, type ProfileValues } from './artist-profile-store.js';
import { checkPatch, type EditableField, type ProfilePatch } from './artist-profile-rules.js';

/** Why an address may edit: the operator named it, and/or it holds the issuance rights of credited assets. */
export type Ground = 'catalogue_editor' | 'issuer';
/** Why it may not: the credit has no curated profile to edit, or the address has no ground. */
export type Refusal = 'not_curated' | 'not_issuer';

export interface Eligibility {
  key: string;
  id: string | null;
  address: string;
  eligible: boolean;
  grounds: Ground[];
  reason: Refusal | null;
  /** Credited assets whose issuance rights the address holds now, by asset name. */
  issued_assets: string[];
  credited_assets: number;
  editable_fields: EditableField[];
  version: number | null;
}

export interface EditedProfile {
  key: string;
  id: string;
  name: string;
  bio: string | null;
  website: string | null;
  x_url: string | null;
  version: number;
  changed: EditableField[];
}

/** Upstream reads one eligibility check runs at once (an artist can have many credited assets). */
const ISSUER_READS = 4;

const forbidden = (reason: Refusal | 'name_not_editable', message: string) => new ApiError('forbidden', message, { reason });

/**
 * Who may edit an artist's profile, and the edit itself. Eligibility is read from the chain at
 * each request (issuance rights move with a Counterparty transfer; a cached answer could let a
 * former issuer edit) plus the catalogue's named editors; nothing is written by a check.
 */
export class ArtistProfileService {
  constructor(
    private readonly artists: ArtistsService,
    private readonly artistsStore: ArtistsStore,
    private readonly store: ArtistProfileStore,
    private readonly counterparty: CounterpartyBackend,
    private readonly now: () => number,
  ) {}

  async check(key: string, address: string): Promise<Eligibility> {
    return (await this.eligibility(key, address)).answer;
  }

  async edit(key: string, address: string, version: number, patch: ProfilePatch): Promise<EditedProfile> {
    const wanted = checkPatch(patch);
    const { answer, artist, credit } = await this.eligibility(key, address);
    if (!artist) throw forbidden('not_curated', 'this credit has no curated profile to edit; the operator adds artists to the catalogue');
    if (!answer.eligible) throw forbidden('not_issuer', 'the session address neither holds the issuance rights of an asset credited to this artist nor is named its editor in the catalogue');
    if (wanted.name !== undefined && artist.name_editable !== 1) throw forbidden('name_not_editable', "the catalogue does not allow this artist's display name to be edited");
    if (version !== artist.version) throw stale(artist.version);

    const before: Record<EditableField, string | null> = { bio: artist.bio, website: artist.website, x_url: artist.x_url, name: artist.display_name };
    const after = { ...before, ...wanted };
    const changed = (Object.keys(wanted) as EditableField[]).filter((f) => after[f] !== before[f]);
    const result = (v: number, row: Record<EditableField, string | null>): EditedProfile => ({
      key: answer.key,
      id: artist.id,
      name: displayNameOf({ name: artist.name, display_name: row.name }),
      bio: row.bio,
      website: row.website,
      x_url: row.x_url,
      version: v,
      changed,
    });
    // Nothing would change: no new version, nothing recorded.
    if (changed.length === 0) return result(artist.version, before);

    const values: ProfileValues = { bio: after.bio, website: after.website, x_url: after.x_url, display_name: after.name };
    const next = await this.store.apply({
      artistId: artist.id,
      artistName: credit,
      fromVersion: version,
      values,
      editor: address,
      grounds: { catalogue_editor: answer.grounds.includes('catalogue_editor'), issued_assets: answer.issued_assets },
      changes: Object.fromEntries(changed.map((f) => [f, { from: before[f], to: after[f] }])),
      at: Math.floor(this.now() / 1000),
    });
    if (next === null) throw stale(await this.store.version(artist.id));
    return result(next, after);
  }

  private async eligibility(key: string, address: string): Promise<{ answer: Eligibility; artist: CuratedArtist | undefined; credit: string }> {
    const { credit, curated, key: canonical } = await this.artists.resolve(key);
    const assets = [...new Set((await this.artistsStore.memberships(credit)).map((m) => m.asset))].sort();
    const base = { key: canonical, id: curated?.id ?? null, address, credited_assets: assets.length, version: curated?.version ?? null };
    if (!curated) {
      const answer: Eligibility = { ...base, eligible: false, grounds: [], reason: 'not_curated', issued_assets: [], editable_fields: [] };
      return { answer, artist: undefined, credit };
    }
    const [named, issued] = await Promise.all([this.store.isCatalogueEditor(curated.id, address), this.issuedBy(assets, address)]);
    const grounds: Ground[] = [...(named ? ['catalogue_editor' as const] : []), ...(issued.length ? ['issuer' as const] : [])];
    const eligible = grounds.length > 0;
    const editable: EditableField[] = eligible ? ['bio', 'website', 'x_url', ...(curated.name_editable === 1 ? ['name' as const] : [])] : [];
    const answer: Eligibility = { ...base, eligible, grounds, reason: eligible ? null : 'not_issuer', issued_assets: issued, editable_fields: editable };
    return { answer, artist: curated, credit };
  }

  /**
   * The assets whose issuance rights `address` holds now. Counterparty Core's asset record has
   * `owner` (the issuer of the latest issuance: who holds the rights after any transfer) and
   * `issuer` (the first issuer); releases before `owner` existed updated `issuer` itself.
   */
  private async issuedBy(assets: string[], address: string): Promise<string[]> {
    const holders = await mapPool(assets, ISSUER_READS, async (asset) => {
      const info = await this.counterparty.getAsset(asset);
      return info ? (info.owner ?? info.issuer) : null;
    });
    return assets.filter((_, i) => holders[i] === address);
  }
}

function stale(current: number | null): ApiError {
  if (current === null) return new ApiError('not_found', 'No such artist');
  return new ApiError('state_changed', 'the profile changed since it was read; re-read it and edit the current version', { current_version: current });
}
