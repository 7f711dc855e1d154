import crypto from 'node:crypto';
import { expect } from 'chai';
import { startWithRoles, type RoleWorld } from '../support/fixtures.js';

// What the descriptor-driven CRUD routes (api/routes/kind-crud.ts) do for the kinds that moved
// onto them, beyond the kinds' own route tests: secrets remembered when replaced or deleted, a
// duplicate name or key answered on its field, the audit entry naming the object and the fields.
describe('descriptor-driven kind routes: what the moved kinds keep', function () {
  this.timeout(60_000);
  let w: RoleWorld;
  const db = () => w.svc.services.db;
  before(async () => { w = await startWithRoles(); });
  after(() => w?.svc.stop());

  it('a secret\'s replaced and deleted values are remembered, sealed, in the same write; a description change is not', async () => {
    const created = await w.operator.post(`/api/environments/${w.envId}/secrets`, { key: 'TOKEN', value: 'first-value-1' });
    expect(created.status, created.text).to.equal(201);
    const sealed = async () => (await db()('secrets').where({ id: created.body.id }).first())?.valueSealed as string;
    const history = async () => (await db()('secret_value_history').where({ environmentId: w.envId, key: 'TOKEN' }).select('valueSealed')).map((r: { valueSealed: string }) => r.valueSealed);
    const first = await sealed();
    expect((await w.operator.patch(`/api/secrets/${created.body.id}`, { description: 'only words' })).status).to.equal(200);
    expect(await history()).to.deep.equal([]);
    expect((await w.operator.patch(`/api/secrets/${created.body.id}`, { value: 'second-value-2' })).status).to.equal(200);
    const second = await sealed();
    expect(second).to.not.equal(first);
    expect(await history()).to.deep.equal([first]);
    expect((await w.operator.delete(`/api/secrets/${created.body.id}`)).status).to.equal(204);
    expect(await history()).to.have.members([first, second]);
    expect(JSON.stringify(await history())).to.not.include('second-value-2');
  });

  it('a duplicate answers 409 on the name column: key for vars and secrets, name for registries and databases', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['vars', { key: 'DUP', value: '1' }, 'key'],
      ['secrets', { key: 'DUP', value: 'v-123456' }, 'key'],
      ['registries', { name: 'dup', type: 'generic', registryUrl: 'https://registry.example.test' }, 'name'],
      ['databases', { name: 'dup', type: 'postgres', databaseName: 'app' }, 'name'],
    ];
    for (const [path, body, field] of cases) {
      expect((await w.operator.post(`/api/environments/${w.envId}/${path}`, body)).status, path).to.equal(201);
      const dup = await w.operator.post(`/api/environments/${w.envId}/${path}`, body);
      expect(dup.status, `${path}: ${dup.text}`).to.equal(409);
      expect(dup.body, path).to.include({ code: 'CONFLICT', field });
    }
  });

  it('audits each write with the object\'s name and the fields it set, never a value; a list of an unknown environment is 404', async () => {
    const reg = await w.operator.post(`/api/environments/${w.envId}/registries`, { name: 'audited', type: 'generic', registryUrl: 'https://r.example.test', token: 'tok-value-123' });
    expect(reg.status, reg.text).to.equal(201);
    await w.operator.patch(`/api/registries/${reg.body.id}`, { password: 'pw-value-123' });
    await w.operator.delete(`/api/registries/${reg.body.id}`);
    const entries = await db()('audit_logs').where({ resourceId: reg.body.id });
    const order = ['createRegistry', 'updateRegistry', 'deleteRegistry'];
    expect(entries.map((e: { action: string }) => e.action)).to.have.members(order);
    const details = order.map((action) => entries.find((e: { action: string }) => e.action === action).details);
    // the fields as validated: those sent and the defaults the schema filled in
    expect(details[0]).to.have.keys('name', 'fields').and.include({ name: 'audited' });
    expect(details[0].fields).to.have.members(['name', 'type', 'registryUrl', 'token', 'isDefault', 'refreshIntervalMinutes']);
    expect(details[1]).to.deep.equal({ name: 'audited', fields: ['password'] });
    expect(details[2]).to.deep.equal({ name: 'audited' });
    expect(entries.every((e: { environmentId: string }) => e.environmentId === w.envId)).to.equal(true);
    expect(JSON.stringify(entries)).to.not.include('tok-value-123').and.not.include('pw-value-123');
    for (const path of ['vars', 'secrets', 'registries', 'databases']) {
      expect((await w.viewer.get(`/api/environments/${crypto.randomUUID()}/${path}`)).status, path).to.equal(404);
    }
  });
});
