/** `npm run client:types`: writes client/src/generated/ from the document the app builds in process. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { servedDocument } from './document.js';
import { generateSchemas, generateTypes } from './generate.js';

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'generated');
const doc = await servedDocument();
fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(path.join(out, 'api.ts'), await generateTypes(doc));
fs.writeFileSync(path.join(out, 'schemas.ts'), generateSchemas(doc));
process.stdout.write(`wrote ${path.relative(process.cwd(), out)}/api.ts and schemas.ts\n`);
