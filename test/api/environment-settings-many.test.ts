import { expect } from 'chai';
import type { Knex } from 'knex';
import { createKnex } from '../../controller/store/knex.js';
import { EnvironmentsRepository } from '../../controller/store/repositories/environments.js';
import { SettingsStore } from '../../controller/store/repositories/environment-settings.js';
import { SETTINGS_MODULES } from '../../controller/settings/environment-settings.js';
import { createTestDatabase } from '../support/test-database.js';

// A batch of looks reads the operations settings of all its environments with one query
// (reconcilers/deployment/reconcile.ts): each must read as get() reads it alone.
describe('environment settings of many environments (SettingsStore.getMany)', () => {
  let db: Knex;
  before(async () => {
    db = createKnex(await createTestDatabase(), 2);
  });
  after(async () => {
    await db?.destroy();
  });

  it('reads each environment as get() does: stored values over the defaults, defaults where none are stored', async () => {
    const [a, b, c] = await new EnvironmentsRepository(db).insertMany([{ name: 'many-a' }, { name: 'many-b' }, { name: 'many-c' }]);
    const settings = new SettingsStore(db);
    await settings.patch(a!.id, 'operations', { driftPolicy: 'heal' });
    await settings.patch(b!.id, 'operations', { driftPolicy: 'off', revisionHistoryLimit: 7 });
    const many = await settings.getMany([a!.id, b!.id, c!.id], 'operations');
    expect([...many.keys()]).to.deep.equal([a!.id, b!.id, c!.id]);
    for (const id of [a!.id, b!.id, c!.id]) expect(many.get(id)).to.deep.equal(await settings.get(id, 'operations'));
    expect(many.get(a!.id)).to.include({ driftPolicy: 'heal' });
    expect(many.get(b!.id)).to.include({ driftPolicy: 'off', revisionHistoryLimit: 7 });
    expect(many.get(c!.id)).to.deep.equal(SETTINGS_MODULES.operations!.defaults);
    expect(await settings.getMany([], 'operations')).to.deep.equal(new Map());
  });
});
