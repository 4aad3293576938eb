// npm run client:generate: rewrites src/client/islet-api.d.ts from the OpenAPI document of the
// current code (see scripts/client/generate-types.ts). Run it after changing a route.
import { writeFileSync } from 'node:fs';
import { CLIENT_TYPES_PATH, generateClientTypes } from './client/generate-types';

const types = await generateClientTypes();
writeFileSync(CLIENT_TYPES_PATH, types);
console.log(`wrote ${CLIENT_TYPES_PATH} (${types.length} bytes)`);
