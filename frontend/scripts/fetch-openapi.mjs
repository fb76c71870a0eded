// Writes openapi.json from a running controller's /v3/api-docs (servers dropped: they name
// the host it ran on), then `npm run api:generate` turns it into src/api/schema.d.ts.
// Usage: node scripts/fetch-openapi.mjs [http://127.0.0.1:8080]
import { writeFileSync } from 'node:fs';

const base = process.argv[2] ?? 'http://127.0.0.1:8080';
const response = await fetch(`${base}/v3/api-docs`);
if (!response.ok) {
  console.error(`GET ${base}/v3/api-docs answered ${response.status}`);
  process.exit(1);
}
const doc = await response.json();
delete doc.servers;
writeFileSync(new URL('../openapi.json', import.meta.url), JSON.stringify(doc, null, 2) + '\n');
console.log(`openapi.json written from ${base} (${Object.keys(doc.paths ?? {}).length} paths)`);
