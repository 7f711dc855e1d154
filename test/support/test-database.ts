import crypto from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { createKnex } from '../../controller/store/knex.js';
import { migrateLatest } from '../../controller/store/migrator.js';

/**
 * Fresh, migrated databases on the real test PostgreSQL (DATABASE_URL from the fleet). The schema
 * is migrated once into a template; each test service gets a copy (CREATE DATABASE … TEMPLATE).
 */
const adminUrl = () => {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: run the tests through `npm test` (test/run.sh), which starts PostgreSQL');
  return url;
};

const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = '/' + name;
  return u.toString();
};

let admin: Knex | null = null;
let template: Promise<string> | null = null;
const created: string[] = [];

function adminDb(): Knex {
  admin ??= knexFactory({ client: 'pg', connection: adminUrl(), pool: { min: 0, max: 2 } });
  return admin;
}

async function buildTemplate(): Promise<string> {
  const name = `stevedore_tpl_${process.pid}_${crypto.randomBytes(3).toString('hex')}`;
  await adminDb().raw(`CREATE DATABASE ${name}`);
  created.push(name);
  const db = createKnex(withDatabase(adminUrl(), name), 2);
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
  return name;
}

/** Migrates the template now (mocha root hook, with a timeout of its own): no test's hook pays for it. */
export async function prepareTemplate(): Promise<void> {
  template ??= buildTemplate();
  await template;
}

/** Creates a fresh database with the current schema and returns its URL. */
export async function createTestDatabase(): Promise<string> {
  template ??= buildTemplate();
  const tpl = await template;
  const name = `stevedore_t_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
  await adminDb().raw(`CREATE DATABASE ${name} TEMPLATE ${tpl}`);
  created.push(name);
  return withDatabase(adminUrl(), name);
}

/** Drops every database this process created (mocha root hook). */
export async function dropTestDatabases(): Promise<void> {
  if (!admin) return;
  for (const name of created.reverse()) {
    await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  }
  created.length = 0;
  await admin.destroy();
  admin = null;
  template = null;
}

/** Creates an empty database (no schema) and returns its URL: for tests that migrate it themselves. */
export async function createEmptyDatabase(): Promise<string> {
  const name = `stevedore_e_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
  await adminDb().raw(`CREATE DATABASE ${name}`);
  created.push(name);
  return withDatabase(adminUrl(), name);
}
