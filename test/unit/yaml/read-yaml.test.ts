import { expect } from 'chai';
import { DocumentBudget, documentsOf, readYamlValue, valueOf, YAML_LIMITS, YamlRefused } from '../../../controller/yaml/read-yaml.js';
import { Pace, runPaced, runToEnd } from '../../../controller/yaml/paced.js';
import { parseFile } from '../../../controller/manifests/parse.js';
import { loadManifests } from '../../../controller/manifests/load.js';
import { aliasBomb, BOMBS, deepNesting, emptyDocuments } from '../../support/yaml-bombs.js';

describe('reading YAML with limits', () => {
  for (const [kind, bomb] of Object.entries({ ...BOMBS, 'a deep nesting': deepNesting })) {
    it(`${kind} is a VALIDATION_ERROR naming the field, never an expansion`, () => {
      expect(() => readYamlValue(bomb(), 'composeTemplate', 'composeTemplate')).to.throw(/composeTemplate is not valid YAML/)
        .with.property('field', 'composeTemplate');
    });

    it(`${kind} in a manifest file is an error of that file`, () => {
      const { documents, errors } = parseFile('bomb.yaml', bomb());
      expect(documents).to.deep.equal([]);
      expect(errors).to.have.length.greaterThan(0);
      expect(errors[0].file).to.equal('bomb.yaml');
    });
  }

  it('aliases within the limit are expanded', () => {
    expect(readYamlValue('a: &a {x: 1}\nb: *a\nc: [*a, *a]\n', 'f', 'f')).to.deep.equal({ a: { x: 1 }, b: { x: 1 }, c: [{ x: 1 }, { x: 1 }] });
  });

  it('an alias bomb is refused (not a syntax error), a limit the manifests routes answer 400 for', () => {
    const [doc] = [...documentsOf(aliasBomb())];
    expect(doc.errors).to.deep.equal([]);
    expect(() => valueOf(doc)).to.throw(YamlRefused, `at most ${YAML_LIMITS.maxAliasCount}`);
    expect(parseFile('bomb.yaml', aliasBomb()).errors[0]).to.include({ file: 'bomb.yaml', refused: true });
  });

  it('one value is one document: a second one is refused', () => {
    expect(() => readYamlValue('a: 1\n---\nb: 2\n', 'the compose file', 'composeTemplate')).to.throw(/more than one document/);
    expect(readYamlValue('', 'f', 'f')).to.equal(null);
  });

  it('counts documents across the files of a folder and stops at the cap', () => {
    const budget = new DocumentBudget(5);
    expect(parseFile('a.yaml', emptyDocuments(3), budget).errors).to.deep.equal([]);
    const second = parseFile('b.yaml', emptyDocuments(3), budget);
    expect(second.errors).to.have.length(1);
    expect(second.errors[0]).to.include({ file: 'b.yaml', refused: true });
    expect(second.errors[0].message).to.include('more than 5 YAML documents');
  });

  it('a folder past the cap is refused at the file that crosses it, and the rest is not read', () => {
    const files = [0, 1, 2, 3].map((i) => ({ path: `f${i}.yaml`, content: emptyDocuments(4_000) }));
    const { errors } = loadManifests(files);
    expect(errors.map((e) => [e.file, !!e.refused])).to.deep.equal([['f2.yaml', true]]);
  });

  it('runToEnd and runPaced give the same result; runPaced yields to the event loop between slices', async () => {
    function* steps(n: number): Generator<void, number> {
      let sum = 0;
      for (let i = 0; i < n; i++) {
        const until = performance.now() + 1;
        while (performance.now() < until) sum += 0; // a millisecond of work
        sum += i;
        yield;
      }
      return sum;
    }
    expect(runToEnd(steps(20))).to.equal(190);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const sum = await runPaced(steps(60), new Pace(5));
    clearInterval(timer);
    expect(sum).to.equal(1770);
    expect(ticks, 'timers ran during the 60 ms of work').to.be.greaterThan(2);
  });
});
