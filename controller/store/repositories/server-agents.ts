import type { Knex } from 'knex';

export interface ServerAgentRow {
  serverId: string;
  tokenHash: string;
  tokenPrefix: string;
  tokenCreatedAt: Date;
  controllerUrl: string | null;
  lastConfigAt: Date | null;
  lastIngestAt: Date | null;
  lastVersion: string | null;
}

/** What an agent token resolves to: its server, and what the agent routes need of it. */
export interface AgentIdentity extends ServerAgentRow {
  environmentId: string;
  serverName: string;
  metricsMode: string;
}

/** server_agents: the agent token of a server (hashed) and when the agent was last heard from. */
export class ServerAgentsRepository {
  constructor(private readonly db: Knex) {}

  /**
   * Stores a new token hash for the server, forgetting what the previous token's agent did.
   * `controllerUrl` undefined keeps the one recorded at install.
   */
  async setToken(serverId: string, token: { hash: string; prefix: string; controllerUrl?: string }, trx?: Knex.Transaction): Promise<ServerAgentRow> {
    const fresh = {
      tokenHash: token.hash, tokenPrefix: token.prefix, tokenCreatedAt: new Date(), lastConfigAt: null, lastIngestAt: null, lastVersion: null,
      ...(token.controllerUrl !== undefined && { controllerUrl: token.controllerUrl }),
    };
    const [row] = await (trx ?? this.db)('server_agents').insert({ serverId, ...fresh })
      .onConflict('serverId').merge(fresh).returning('*');
    return row as ServerAgentRow;
  }

  async findByServer(serverId: string, trx?: Knex.Transaction): Promise<ServerAgentRow | undefined> {
    return (trx ?? this.db)('server_agents').where({ serverId }).first();
  }

  /** The agent whose token has this SHA-256, with its server, or undefined. */
  async findByTokenHash(tokenHash: string): Promise<AgentIdentity | undefined> {
    return this.db('server_agents as a').join('servers as s', 's.id', 'a.server_id').where('a.token_hash', tokenHash)
      .first('a.*', 's.environment_id', 's.name as server_name', 's.metrics_mode');
  }

  /** Records a configuration fetch by the agent. */
  async touchConfig(serverId: string, version: string | null): Promise<void> {
    await this.db('server_agents').where({ serverId }).update({ lastConfigAt: this.db.fn.now(), lastVersion: version });
  }

  /**
   * Records an ingest; resolves to the previous ingest time (null: the first since the token was
   * set). One statement per post: the row is locked by the subquery, so two posts racing after a
   * new token cannot both see null.
   */
  async touchIngest(serverId: string, version: string | null): Promise<Date | null> {
    const { rows } = await this.db.raw(
      `UPDATE server_agents a SET last_ingest_at = now(), last_version = ?
       FROM (SELECT server_id, last_ingest_at AS previous FROM server_agents WHERE server_id = ? FOR UPDATE) o
       WHERE a.server_id = o.server_id RETURNING o.previous`, [version, serverId]);
    return (rows[0]?.previous as Date | null | undefined) ?? null;
  }

  /** Forgets the server's agent: its token stops working at once. */
  async remove(serverId: string, trx?: Knex.Transaction): Promise<boolean> {
    return (await (trx ?? this.db)('server_agents').where({ serverId }).delete()) > 0;
  }
}
