import type { CatalogFile } from '../../src/modules/market/catalog-import.js';

/** A small catalogue with every case the catalogue reads care about. */
export const ODD_CREDIT = 'Anon & Co/Studio %';

export const catalog: CatalogFile = {
  collections: [
    { slug: 'alpha', name: 'Alpha Cards', description: 'First.' },
    { slug: 'beta', name: 'Beta Cards' },
    { slug: 'gamma', name: 'Gamma Cards', description: 'Third.' },
  ],
  artists: [
    { name: 'Mondo Pepe', bio: 'Early contributor.', website: 'https://example.org/mondo' },
    { name: 'Twin One', slug: 'twin' },
    { name: 'Twin Two', slug: 'twin' },
    { name: 'zeta painter', x_url: 'https://x.com/zeta' },
    { name: 'Quiet Curator' },
  ],
  assets: [
    { asset: 'PEPEONE', collection: 'alpha', also_in: ['beta'], artist: 'Mondo Pepe', issued_year: 2016, series: 1, media_kind: 'image', max_supply_units: 300 },
    { asset: 'PEPETWO', collection: 'alpha', artist: 'Mondo Pepe', issued_year: 2016, series: 2, media_kind: 'image' },
    { asset: 'PEPETHREE', collection: 'beta', artist: 'Mondo Pepe', issued_year: 2017, series: 3, media_kind: 'video' },
    { asset: 'PEPEFOUR', collection: 'beta', artist: 'Mondo Pepe', issued_year: 2017, series: 3, media_kind: 'image' },
    { asset: 'NONCOA', collection: 'alpha', artist: ODD_CREDIT, issued_year: 2018 },
    { asset: 'NONCOB', collection: 'alpha', artist: ODD_CREDIT },
    { asset: 'NONCOC', collection: 'beta', artist: ODD_CREDIT, media_kind: 'svg' },
    { asset: 'CATNINE', collection: 'alpha', artist: '9lives' },
    { asset: 'CATTEN', collection: 'gamma', artist: '9lives' },
    { asset: 'TWINONE', collection: 'alpha', artist: 'Twin One' },
    { asset: 'TWINTWO', collection: 'gamma', artist: 'Twin Two' },
    { asset: 'ZETAONE', collection: 'beta', artist: 'zeta painter', issued_year: 2020, media_kind: 'html' },
    { asset: 'ZETATWO', collection: 'gamma', artist: 'zeta painter' },
    { asset: 'EMILEONE', collection: 'gamma', artist: 'Émile Ñ' },
    { asset: 'MYSTERY', collection: 'gamma', artist: 'anonymous' },
    { asset: 'NOBODY', collection: 'gamma' },
  ],
};
