import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { CLIENT_TYPES_PATH, generateClientTypes } from '../../scripts/client/generate-types';

describe('the typed client', () => {
  test('its types are those the current OpenAPI document generates (run `npm run client:generate` when this fails)', async () => {
    const committed = readFileSync(CLIENT_TYPES_PATH, 'utf8');
    const current = await generateClientTypes();
    expect(current.length).toBeGreaterThan(10_000);
    expect(committed).toBe(current);
  });

  test('every documented path is typed', async () => {
    const committed = readFileSync(CLIENT_TYPES_PATH, 'utf8');
    for (const path of ['/api/apps/{appId}/live-activities', '/api/apps/{appId}/live-activity-streams/{key}', '/api/admin/apps/{appId}/webhooks/{id}/attempts']) {
      expect(committed).toContain(`"${path}": {`);
    }
  });
});
