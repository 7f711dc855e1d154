import { dropTestDatabases, prepareTemplate } from './test-database.js';

/**
 * Loaded by .mocharc.json: the migrated template database is built once before any test (on a
 * loaded machine migrating takes longer than one hook's 60 s), and what the run created is dropped.
 */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    if (!process.env.DATABASE_URL) return; // unit tests run without one
    this.timeout(180_000);
    await prepareTemplate();
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(180_000); // one DROP … WITH (FORCE) per database the run made, on a busy machine
    await dropTestDatabases();
  },
};
