import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { generatedFiles } from '../../../manifests-schema/build.js';

describe('manifests-schema generated files', () => {
  it('the *.schema.json files and docs/manifests.md match the kind definitions (run npx tsx manifests-schema/build.ts)', () => {
    for (const [path, text] of Object.entries(generatedFiles())) {
      const onDisk = readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
      expect(onDisk === text, `${path} is stale`).to.equal(true);
    }
  });

  it('every kind schema is draft-07 and closed to unknown fields', () => {
    for (const [path, text] of Object.entries(generatedFiles())) {
      if (!path.endsWith('.json')) continue;
      const schema = JSON.parse(text);
      expect(schema.$schema).to.equal('http://json-schema.org/draft-07/schema#');
      expect(schema.additionalProperties, path).to.equal(false);
      expect(schema.properties.spec.additionalProperties, path).to.equal(false);
    }
  });
});
