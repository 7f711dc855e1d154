import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { createKnex } from '../../controller/store/knex.js';
import { Receiver } from '../support/receiver.js';

describe('stopping the service while a receiver hangs', () => {
  const rx = new Receiver();
  let svc: TestService | null = null;
  before(() => rx.start());
  after(async () => {
    await svc?.stop();
    await rx.stop();
  });

  it('cuts the request at once instead of waiting out the 30 s timeout, and leaves the delivery to be retried', async () => {
    svc = await startTestService();
    const url = svc.services.config.databaseUrl!;
    await svc.services.db('outgoing_webhooks').insert({ name: 'stuck', url: rx.url, enabled: true });
    rx.mode = 'hang';
    await svc.services.events.publish('backup.success', null, { databaseName: 'db' });
    await rx.waitFor(() => rx.hungCount === 1, 5000, 'a held request');
    await svc.stop(); // mocha's 20 s limit is below the default 30 s attempt timeout
    svc = null;
    const db = createKnex(url, 1);
    try {
      const row = await db('delivery_outbox').first();
      expect(row).to.include({ status: 'delivering', attempts: 1, lastStatus: null });
    } finally {
      await db.destroy();
    }
  });
});
