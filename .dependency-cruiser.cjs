/**
 * The boundaries of ARCHITECTURE.md, checked by test/unit/boundaries.test.ts (part of `npm test`).
 * Every rule counts type-only imports (`import type`, hence tsPreCompilationDeps): they vanish at
 * compile time, but a `Knex` type outside the store means database code outside the store, a
 * reconciler's type named in controller/ ties the layers together again, and a cycle of types
 * is still two modules that cannot be understood (or moved) one without the other. test/ and
 * bench/ may reach anything (they set up and inspect the database), so they are not cruised.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'knex-only-in-store',
      comment: 'Only controller/store/ (repositories, migrations, the connection) talks to the database.',
      severity: 'error',
      from: { pathNot: '^controller/store/' },
      to: { path: '(^|/)node_modules/(knex|pg)/' },
    },
    {
      name: 'no-api-from-the-core',
      comment: 'controller/, reconcilers/ and manifests-schema/ work without the HTTP layer: nothing there imports api/.',
      severity: 'error',
      from: { path: '^(controller|reconcilers|manifests-schema)/' },
      to: { path: '^api/' },
    },
    {
      name: 'no-reconcilers-from-controller',
      comment: 'Imports run one way: reconcilers/ import controller/, never the reverse. What controller/ runs of the reconcilers is handed in at start-up (controller/model/reconcilers.ts).',
      severity: 'error',
      from: { path: '^controller/' },
      to: { path: '^reconcilers/' },
    },
    {
      name: 'no-cycles',
      comment: 'A module must not import itself through others, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(test|bench)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensionAlias: { '.js': ['.ts', '.js'] } },
  },
};
