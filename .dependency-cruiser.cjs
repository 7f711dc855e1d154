/**
 * The boundaries of ARCHITECTURE.md, checked by test/unit/boundaries.test.ts (part of `npm test`).
 * Type-only imports (`import type`) are left out of the cycle rule: they vanish at compile time,
 * so they cannot make a module see another half-initialised. The other rules count them: a
 * `Knex` type outside the store means database code outside the store. test/ and bench/ may
 * reach anything (they set up and inspect the database), so they are not cruised.
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
      name: 'no-cycles',
      comment: 'A module must not import itself through others; type-only imports do not count.',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
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
