import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { validationError } from '../../errors/app-error.js';
import { KindRepository, type KindRow } from './kind-repository.js';
import { nodeExists } from './topology-nodes.js';

type End = { kind: string; id: string };

/** Connections: each end `{kind, id}` is stored as a kind and an id column. */
export class ConnectionsRepository extends KindRepository {
  protected override columns(body: Record<string, unknown>) {
    const { from, to, environmentId: _e, ...rest } = body as { from?: End; to?: End } & Record<string, unknown>;
    return {
      ...super.columns(rest),
      ...(from && { fromKind: from.kind, fromId: from.id }),
      ...(to && { toKind: to.kind, toId: to.id }),
    };
  }

  override async create(environmentId: string, body: Record<string, unknown>): Promise<KindRow> {
    return super.create(environmentId, { name: `connection-${randomUUID().slice(0, 8)}`, ...body });
  }

  /** Both ends must be nodes of the connection's environment. */
  protected override async check(trx: Knex.Transaction, environmentId: string, body: Record<string, unknown>) {
    for (const end of ['from', 'to'] as const) {
      const node = body[end] as End | undefined;
      if (node && !(await nodeExists(trx, environmentId, node.kind, node.id))) {
        throw validationError(`${end}: no ${node.kind} with id ${node.id} in this environment`, `${end}.id`);
      }
    }
  }

  override async present(rows: KindRow[]) {
    return rows.map((r) => ({
      id: r.id, environmentId: r.environmentId, name: r.name,
      from: { kind: r.fromKind, id: r.fromId }, to: { kind: r.toKind, id: r.toId },
      label: r.label, port: r.port, protocol: r.protocol, description: r.description,
      source: r.source, createdAt: r.createdAt, updatedAt: r.updatedAt,
    }));
  }

  /** Every connection of an environment (the topology's edges). */
  async allOf(environmentId: string): Promise<KindRow[]> {
    return this.q().where({ environmentId }).orderBy('name');
  }
}
