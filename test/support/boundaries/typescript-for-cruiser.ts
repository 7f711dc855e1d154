import Module, { register } from 'node:module';

/**
 * dependency-cruiser reads TypeScript through the compiler's JavaScript API, which TypeScript 7
 * (the project's compiler, a native binary) no longer ships. The devDependency `typescript-js`
 * is TypeScript 6 under another name; this points dependency-cruiser's `typescript` at it, and
 * only dependency-cruiser's: every other importer keeps the project's compiler.
 */
const fromCruiser = (where: string | undefined) => !!where && where.includes('/node_modules/dependency-cruiser/');
const renamed = (request: string) => `typescript-js${request.slice('typescript'.length)}`;
const isTypescript = (request: string) => request === 'typescript' || request.startsWith('typescript/');

// import('typescript'): the ESM resolver.
register(`data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  const mine = (context.parentURL ?? '').includes('/node_modules/dependency-cruiser/');
  if (mine && (specifier === 'typescript' || specifier.startsWith('typescript/'))) {
    return next('typescript-js' + specifier.slice('typescript'.length), context);
  }
  return next(specifier, context);
}`)}`);

// require('typescript/package.json'): the version check before the import.
type Resolve = (request: string, parent: { filename?: string } | undefined, ...rest: unknown[]) => string;
const modules = Module as unknown as { _resolveFilename: Resolve };
const original = modules._resolveFilename;
modules._resolveFilename = function (request, parent, ...rest) {
  return original.call(this, fromCruiser(parent?.filename) && isTypescript(request) ? renamed(request) : request, parent, ...rest);
};
