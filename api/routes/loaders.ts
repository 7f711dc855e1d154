import type { Services } from '../../controller/services.js';
import { conflict, notFound } from '../../controller/errors/app-error.js';
import type { EnvironmentRow } from '../../controller/store/repositories/environments.js';
import type { Ctx } from '../http/types.js';

/** `load` for routes under /api/environments/{envId}: the environment, or 404. */
export const environmentOf = (s: Services) => async (_ctx: Ctx, params: Record<string, string>): Promise<EnvironmentRow> => {
  const env = await s.environments.findById(params.envId);
  if (!env) throw notFound('Environment');
  return env;
};

/** `load` for item routes of a table with an id: the row, or 404 naming the kind. */
export const rowOf = <T extends { id: string }>(repo: { findById(id: string): Promise<T | undefined> }, what: string) =>
  async (_ctx: Ctx, params: Record<string, string>): Promise<T> => {
    const row = await repo.findById(params.id);
    if (!row) throw notFound(what);
    return row;
  };

/** Routes that need the server's SSH connection refuse a socket-mode server (this machine) with 409. */
export const sshOnly = (server: { dockerMode: string }): void => {
  if (server.dockerMode === 'socket') throw conflict('The server is in socket mode: it is this machine and has no SSH connection');
};
