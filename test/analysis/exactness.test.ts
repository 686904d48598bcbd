import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFixture } from '../helpers/engine';
import { compareFolder } from '../../bench/radius-exactness';

// The same comparison `bench/radius-exactness.ts` runs on rxjs and phaser, on fixtures small enough for
// every test run: tsconfig paths, `.js` → `.ts`, barrels, `export *`, CommonJS, type-only imports, triple-slash references.
for (const fixture of ['radius-graph', 'ts-paths']) {
  test(`the import graph of ${fixture} equals dependency-cruiser's, edge for edge and closure for closure`, async () => {
    const result = await compareFolder(copyFixture(fixture), fixture);
    assert.ok(result.ourEdges > 5, JSON.stringify(result));
    assert.deepEqual(result.onlyOurs, []);
    assert.deepEqual(result.onlyTheirs, []);
    assert.deepEqual(result.typeOnlyMismatches, []);
    assert.equal(result.closureMismatches, 0);
  });
}
