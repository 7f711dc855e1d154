import type { RouteSpec } from '../http/route.js';

const tables = new WeakMap<object, RouteSpec[]>();

/**
 * The route table the app was built with, per Services instance. GET /api/admin/mcp is itself a
 * route of that table, so it reads the table from here at request time instead of importing the
 * route index (which would be an import cycle).
 */
export function rememberRouteTable(owner: object, specs: RouteSpec[]): void {
  tables.set(owner, specs);
}

export function routeTableOf(owner: object): RouteSpec[] {
  const specs = tables.get(owner);
  if (!specs) throw new Error('the route table has not been built (api/app.ts buildRouter)');
  return specs;
}
