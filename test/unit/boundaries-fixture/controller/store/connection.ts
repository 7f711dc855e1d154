// Allowed: the store may import knex.
import knexFactory from 'knex';

export const connect = (url: string) => knexFactory({ client: 'pg', connection: url });
