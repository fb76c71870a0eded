// Generates src/api/schema.d.ts from the OpenAPI document (src/main/openapi/gantry.json) with
// openapi-typescript. The document lists an enum's known values in `x-extensible-enum` (so SDKs
// take a value added later), which openapi-typescript does not read: it would type a pending
// reason or a job state as any string. Here such a schema becomes the union of its values, so the
// dashboard, built with the controller that serves it, is checked against every value it can be
// sent: `Record<PendingReason, string>` fails to compile when a reason has no sentence. At run
// time the views still treat a value they do not know (an older dashboard in a cached tab).
import { writeFileSync } from 'node:fs';
import openapiTS, { astToString, COMMENT_HEADER, tsLiteral, tsUnion } from 'openapi-typescript';

const source = new URL('../../src/main/openapi/gantry.json', import.meta.url);
const target = new URL('../src/api/schema.d.ts', import.meta.url);

const ast = await openapiTS(source, {
  transform(schema) {
    const known = schema['x-extensible-enum'];
    if (Array.isArray(known) && known.length > 0 && known.every((v) => typeof v === 'string')) {
      return tsUnion(known.map((v) => tsLiteral(v)));
    }
    return undefined;
  },
});
writeFileSync(target, COMMENT_HEADER + astToString(ast));
