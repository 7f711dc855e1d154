// docs/kinds.md says a plain kind is three files: its descriptor, its migration and its line in
// controller/kinds/index.ts. This test takes a copy of the sources in a temporary folder, adds
// exactly those three files for a kind `Widget` (and runs the schema generator the docs name),
// starts the copy as a user would (`bin/stevedore.js serve`: the esbuild bundle of the copy, on
// the test PostgreSQL) and finds the kind in the generic CRUD routes, the OpenAPI document,
// manifests-schema (and the manifest loader) and the MCP tool list. A list of kinds written by
// hand anywhere on those paths (OpenAPI tags, MCP bindings, …) would leave Widget out and fail it.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { bootstrapAdmin, createEnvironment } from '../support/fixtures.js';
import { HttpClient } from '../support/http-client.js';
import { connectMcp, toolJson, toolNames } from '../support/mcp-client.js';
import { createTestDatabase } from '../support/test-database.js';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
/**
 * What the service is built and run from: bin/server-bundle.js bundles controller/, reconcilers/
 * and api/ (which serves dashboard/); manifests-schema/ is generated from the kinds.
 */
const COPIED = ['bin', 'controller', 'api', 'reconcilers', 'dashboard', 'manifests-schema', 'package.json', 'tsconfig.json',
  'test', '.mocharc.json']; // and the tests that hold kind lists, run from the copy too
/** The unit tests that check every kind (their lists of kinds come from the descriptors). */
const KIND_TESTS = ['test/unit/kinds/descriptors.test.ts', 'test/unit/manifests/load.test.ts', 'test/unit/manifests-schema/build.test.ts'];

/** The three files of a plain kind (docs/kinds.md, "Adding a kind"), for `Widget`. */
const DESCRIPTOR = `import type { KindDescriptor } from './kind.js';
import { int, nonEmpty, nullable, object, resourceSchemas, str, timestamp, uuid } from './schema.js';

const fields = {
  color: nonEmpty(30, { description: 'What colour it is painted' }),
  size: nullable(int(1, 100)),
  note: nullable(str({ maxLength: 200 })),
};

export const widget: KindDescriptor = {
  kind: 'Widget',
  namespaced: true,
  description: 'A sample kind that only its descriptor, migration and list line describe.',
  table: 'widgets',
  versioned: false,
  schemas: resourceSchemas({
    writable: { name: nonEmpty(100, { pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }), ...fields },
    readOnly: { id: uuid, environmentId: uuid, source: { type: 'object' }, createdAt: timestamp, updatedAt: timestamp },
    required: ['name', 'color'],
  }),
  manifest: {
    spec: object(fields, ['color']),
    columns: ['color', 'size', 'note'],
    defaults: { size: null, note: null },
  },
  api: { path: 'widgets' },
};
`;
// after every migration there is (a key far ahead, so one added later still sorts before it)
const MIGRATION_FILE = '20991231W-create-widgets.ts';
const MIGRATION = `import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('widgets', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('color').notNullable();
    t.integer('size');
    t.text('note');
    t.jsonb('source').notNullable().defaultTo(JSON.stringify({ kind: 'api' }));
    t.timestamps(true, true);
    t.unique(['environment_id', 'name'], { indexName: 'widgets_env_name_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('widgets');
}
`;

/** controller/kinds/index.ts with Widget's line: its import and its place at the end of KINDS. */
function withWidget(index: string): string {
  const list = /(export const KINDS: KindDescriptor\[\] = \[[\s\S]*?)\n\];/;
  expect(index, 'controller/kinds/index.ts declares `export const KINDS: KindDescriptor[] = [ … ];`').to.match(list);
  return `import { widget } from './widget.js';\n${index.replace(list, '$1 widget,\n];')}`;
}

/** A copy of the sources the service is built from; node_modules' entries linked, its cache the copy's own. */
function copySources(): string {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-new-kind-'));
  for (const entry of COPIED) fs.cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
  // one link per package rather than one for the folder: the copy's bundle goes to its own
  // node_modules/.cache, never over the one the other tests run from
  fs.mkdirSync(path.join(copy, 'node_modules'));
  for (const entry of fs.readdirSync(path.join(ROOT, 'node_modules'))) {
    if (entry !== '.cache') fs.symlinkSync(path.join(ROOT, 'node_modules', entry), path.join(copy, 'node_modules', entry));
  }
  return copy;
}

/** Runs `bin/stevedore.js serve` from the copy and resolves with its URL once it listens. */
function serve(copy: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const { NODE_OPTIONS: _loader, ...inherited } = process.env;
  const child = spawn(process.execPath, [path.join(copy, 'bin/stevedore.js'), 'serve'], {
    cwd: copy, env: { ...inherited, ...env }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let log = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      log += chunk;
      const line = log.split('\n').find((l) => l.includes('"stevedore listening"'));
      if (line) resolve({ child, url: JSON.parse(line).url });
    });
    child.on('exit', (code) => reject(new Error(`the copy's service exited (${code}) before it listened:\n${log.slice(-4000)}`)));
  });
}

describe('a new plain kind: its descriptor, migration and line in the kinds list are all it takes', function () {
  this.timeout(60_000);
  let copy: string;
  let service: ChildProcess | undefined;
  let admin: HttpClient;
  let envId: string;
  let envName: string;

  before(async function () {
    this.timeout(120_000); // a copy, the schema generator, a bundle of the copy and its start
    copy = copySources();
    fs.writeFileSync(path.join(copy, 'controller/kinds/widget.ts'), DESCRIPTOR);
    fs.writeFileSync(path.join(copy, 'controller/store/migrations', MIGRATION_FILE), MIGRATION);
    const index = path.join(copy, 'controller/kinds/index.ts');
    fs.writeFileSync(index, withWidget(fs.readFileSync(index, 'utf8')));
    // "Run npx tsx manifests-schema/build.ts to regenerate the manifest schemas" (docs/kinds.md)
    await run(process.execPath, ['--import', 'tsx', 'manifests-schema/build.ts'], { cwd: copy });

    const stateDir = path.join(copy, 'state');
    const started = await serve(copy, {
      DATABASE_URL: await createTestDatabase(), STEVEDORE_STATE_DIR: stateDir, PORT: '0', HOST: '127.0.0.1',
      MCP_ENABLED: 'true', RATE_LIMIT_PER_MINUTE: '0', PASSWORD_HASH_COST: '10', LOG_LEVEL: 'info',
    });
    service = started.child;
    admin = await bootstrapAdmin(new HttpClient(started.url));
    ({ id: envId, name: envName } = await createEnvironment(admin));
  });

  after(async () => {
    if (service && service.exitCode === null) {
      const exited = new Promise((r) => service!.once('exit', r));
      service.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (service.exitCode === null) service.kill('SIGKILL');
    }
    if (copy) fs.rmSync(copy, { recursive: true, force: true });
  });

  it('CRUD: the generic routes create, read and list a widget in PostgreSQL and validate with its schemas', async () => {
    const created = await admin.post(`/api/environments/${envId}/widgets`, { name: 'w1', color: 'blue', size: 3 });
    expect(created.status, created.text).to.equal(201);
    expect(created.body).to.include({ name: 'w1', color: 'blue', size: 3, note: null, environmentId: envId });
    const read = await admin.get(`/api/widgets/${created.body.id}`);
    expect(read.status, read.text).to.equal(200);
    expect(read.body).to.deep.equal(created.body);
    const list = await admin.get(`/api/environments/${envId}/widgets?limit=200`);
    expect(list.body.items).to.deep.include(created.body);
    // the descriptor's schemas validate: an unknown field and an out-of-range size are refused
    for (const body of [{ name: 'w2', color: 'red', weight: 1 }, { name: 'w2', color: 'red', size: 500 }]) {
      const bad = await admin.post(`/api/environments/${envId}/widgets`, body);
      expect(bad.status, JSON.stringify(body)).to.equal(400);
      expect(bad.body.code).to.equal('VALIDATION_ERROR');
    }
    expect((await admin.post(`/api/environments/${envId}/widgets`, { name: 'w1', color: 'red' })).status).to.equal(409);
  });

  it('OpenAPI: the document has the widget operations under a widgets tag described by the descriptor', async () => {
    const doc = (await admin.get('/api/openapi.json')).body;
    const collection = doc.paths['/api/environments/{envId}/widgets'];
    const item = doc.paths['/api/widgets/{id}'];
    expect(collection?.get?.operationId).to.equal('listWidgets');
    expect(collection?.post?.operationId).to.equal('createWidget');
    expect([item?.get?.operationId, item?.patch?.operationId, item?.delete?.operationId]).to.deep.equal(['getWidget', 'updateWidget', 'deleteWidget']);
    for (const op of [collection.get, collection.post, item.get, item.patch, item.delete]) expect(op.tags).to.deep.equal(['widgets']);
    expect(doc.tags).to.deep.include({ name: 'widgets', description: 'A sample kind that only its descriptor, migration and list line describe.' });
    expect(Object.keys(collection.post.requestBody.content['application/json'].schema.properties)).to.have.members(['name', 'color', 'size', 'note']);
  });

  it('manifests-schema: the generator writes widget.schema.json from the descriptor, and a Widget manifest applies', async () => {
    const schema = JSON.parse(fs.readFileSync(path.join(copy, 'manifests-schema/widget.schema.json'), 'utf8'));
    expect(schema.properties.kind).to.deep.equal({ type: 'string', const: 'Widget' });
    expect(schema.properties.spec.properties.size).to.deep.equal({ type: ['integer', 'null'], minimum: 1, maximum: 100 });
    expect(schema.properties.spec.properties.note).to.deep.equal({ type: ['string', 'null'], maxLength: 200 });
    expect(schema.properties.spec.required).to.deep.equal(['color']);
    const validate = new Ajv({ strict: false }).compile(schema);
    const doc = { apiVersion: 'stevedore/v1', kind: 'Widget', metadata: { name: 'from-git', environment: envName }, spec: { color: 'green', size: 7 } };
    expect(validate(doc), JSON.stringify(validate.errors)).to.equal(true);
    expect(validate({ ...doc, spec: { color: 'green', shape: 'round' } })).to.equal(false);
    expect(fs.readFileSync(path.join(copy, 'docs/manifests.md'), 'utf8')).to.match(/Widget/);

    // the loader validates with the same schema and the writer stores the kind from its descriptor
    const yaml = (spec: string) => `apiVersion: stevedore/v1\nkind: Widget\nmetadata: {name: from-git, environment: ${envName}}\nspec: ${spec}\n`;
    const refused = await admin.post('/api/manifests/apply', { files: [{ path: 'w.yaml', content: yaml('{color: green, shape: round}') }] });
    expect(refused.status, refused.text).to.equal(400);
    expect(refused.body.errors.map((e: any) => `${e.file}: ${e.message}`).join('\n')).to.match(/^w\.yaml: .*shape/m);
    const applied = await admin.post('/api/manifests/apply', { files: [{ path: 'w.yaml', content: yaml('{color: green, size: 7}') }] });
    expect(applied.status, applied.text).to.equal(200);
    const items = (await admin.get(`/api/environments/${envId}/widgets?limit=200`)).body.items;
    expect(items.find((w: any) => w.name === 'from-git')).to.include({ color: 'green', size: 7 });
  });

  it('tests: the unit tests over every kind pass in the copy with no line about Widget', async function () {
    this.timeout(90_000); // one mocha process loading every route through tsx
    const { DATABASE_URL: _db, NODE_OPTIONS: _loader, ...env } = process.env;
    // --no-color: CI may force colours, and an escape code would sit between the tick and the name
    const out = await run(process.execPath, ['node_modules/mocha/bin/mocha.js', '--no-color', '--reporter', 'spec', ...KIND_TESTS], { cwd: copy, env })
      .then((r) => r.stdout, (e: { stdout: string; stderr: string }) => `${e.stdout}\n${e.stderr}`);
    expect(out, out).to.match(/^\s+\d+ passing/m);
    expect(out, out).not.to.match(/failing/);
    // the kinds' lists took Widget in: its own case of the per-kind checks ran and passed
    expect(out, out).to.match(/✔ Widget: the routes validate with the descriptor's schemas/);
  });

  it('MCP: a list_widgets tool is listed and replays the widgets collection route', async () => {
    const mcp: Client = await connectMcp(admin.baseUrl, admin.token);
    try {
      expect(await toolNames(mcp)).to.include('list_widgets');
      const widget = (await admin.post(`/api/environments/${envId}/widgets`, { name: 'seen-by-mcp', color: 'grey' })).body;
      const listed = await mcp.callTool({ name: 'list_widgets', arguments: { envId, limit: 200 } });
      expect(listed.isError, JSON.stringify(listed)).to.equal(undefined);
      expect(toolJson(listed).items).to.deep.include(widget);
      expect(toolJson(listed)).to.deep.equal((await admin.get(`/api/environments/${envId}/widgets?limit=200`)).body);
    } finally {
      await mcp.close();
    }
  });
});
