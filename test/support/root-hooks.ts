import { dropTestDatabases } from './test-database.js';

/** Loaded by .mocharc.json: drop the databases the run created. */
export const mochaHooks = {
  async afterAll() {
    await dropTestDatabases();
  },
};
