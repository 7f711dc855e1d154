import { expect } from 'chai';
import { describeViolation, findViolations, SOURCE_FOLDERS } from '../support/boundaries/cruise.js';
import { findDatabaseHandleUses } from '../support/boundaries/database-handles.js';

// The boundaries of ARCHITECTURE.md (rules in .dependency-cruiser.cjs): knex only under
// controller/store/, nothing under controller/, reconcilers/ or manifests-schema/ imports api/,
// nothing under controller/ imports reconcilers/, no import cycles (type-only imports count).
// A run cruises a few hundred files (15 s idle, minutes on a loaded machine).
const FIXTURE = new URL('./boundaries-fixture/', import.meta.url).pathname;

describe('boundaries', function () {
  this.timeout(400_000);

  it('the source keeps every boundary', async () => {
    const violations = await findViolations();
    expect(violations.map(describeViolation), 'violations of .dependency-cruiser.cjs').to.deep.equal([]);
  });

  it('no code outside controller/store/ queries through the database handle', () => {
    const uses = findDatabaseHandleUses(SOURCE_FOLDERS);
    expect(uses.map((u) => `${u.file}:${u.line}: ${u.text}`),
      'move these queries into a repository under controller/store/repositories/').to.deep.equal([]);
  });

  it('reports each kind of violation in a fixture, and leaves allowed imports alone', async () => {
    const found = (await findViolations(['api', 'controller', 'reconcilers'], FIXTURE))
      .map((v) => `${v.rule}: ${v.from} -> ${v.to.replace(/^.*node_modules\//, 'node_modules/')}`).sort();
    expect(found).to.deep.equal([
      'knex-only-in-store: controller/reads-the-database.ts -> node_modules/knex/knex.js',
      'no-api-from-the-core: reconcilers/uses-api.ts -> api/route.ts',
      'no-cycles: controller/cycle-a.ts -> controller/cycle-b.ts',
      'no-cycles: controller/types-a.ts -> controller/types-b.ts',
      'no-reconcilers-from-controller: controller/uses-a-reconciler.ts -> reconcilers/converge.ts',
    ]);
  });

  it('finds a query on the database handle in a fixture', () => {
    const uses = findDatabaseHandleUses(['controller'], FIXTURE).map((u) => `${u.file}:${u.line}`);
    expect(uses).to.deep.equal(['controller/reads-the-database.ts:4']);
  });
});
