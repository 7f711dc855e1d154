/**
 * Predefined commands of a service or database type. `command` is an argument array, never a
 * shell line. target 'container' runs it inside the deployment's container (docker exec);
 * 'host' runs it on the server, where the token {{container}} stands for the container name.
 */
export interface TypeCommand {
  name: string;
  description?: string;
  command: string[];
  target: 'container' | 'host';
}

export interface TypeDefinition {
  name: string;
  description: string;
  defaultImage?: string;
  defaultPort?: number;
  commands: TypeCommand[];
}

const logs: TypeCommand = {
  name: 'logs', description: 'Last 200 lines of the container log', target: 'host',
  command: ['docker', 'logs', '--tail', '200', '{{container}}'],
};
const restart: TypeCommand = {
  name: 'restart', description: 'Restart the container in place', target: 'host',
  command: ['docker', 'restart', '{{container}}'],
};

/** Seeded by migration 20261129B: the types a fresh installation offers. */
export const DEFAULT_SERVICE_TYPES: TypeDefinition[] = [
  {
    name: 'nginx', description: 'nginx web server or reverse proxy', defaultImage: 'nginx',
    commands: [
      { name: 'test-config', description: 'Check the configuration files', target: 'container', command: ['nginx', '-t'] },
      { name: 'reload', description: 'Reload the configuration without dropping connections', target: 'container', command: ['nginx', '-s', 'reload'] },
      logs,
    ],
  },
  {
    name: 'postgres', description: 'PostgreSQL database server', defaultImage: 'postgres',
    commands: [
      { name: 'ready', description: 'Check that the server accepts connections', target: 'container', command: ['pg_isready'] },
      { name: 'list-databases', description: 'List the databases', target: 'container', command: ['psql', '-U', 'postgres', '-c', '\\l'] },
      logs,
    ],
  },
  {
    name: 'redis', description: 'Redis key-value store', defaultImage: 'redis',
    commands: [
      { name: 'ping', description: 'Check that the server answers', target: 'container', command: ['redis-cli', 'ping'] },
      { name: 'info', description: 'Server statistics', target: 'container', command: ['redis-cli', 'info'] },
      logs,
    ],
  },
  {
    name: 'node-app', description: 'Node.js application', defaultImage: 'node',
    commands: [
      { name: 'node-version', description: 'Node.js version inside the container', target: 'container', command: ['node', '--version'] },
      restart,
      logs,
    ],
  },
  { name: 'generic', description: 'Any other container', commands: [restart, logs] },
];

/**
 * Seeded by migration 20261129C; backup, restore, check and ready added by 20261214D, size by 20261216M. Tokens:
 * {{database}} and {{user}} are the database's name and user, {{query}} a drill's check query (the password is handed to the
 * command in the engine's environment variable, see controller/databases/engines.ts).
 * backup writes the dump to stdout; restore reads it from stdin; check prints one line (a
 * restore drill's proof); ready exits 0 once the server accepts TCP connections; size prints the
 * database's size in bytes (monitoring).
 */
/** The built-in PostgreSQL backup command (migration 20261227P moves databases off the uncompressed one). */
export const POSTGRES_BACKUP = ['pg_dump', '-Fc', '-Z', '1', '-U', '{{user}}', '-d', '{{database}}'];

export const DEFAULT_DATABASE_TYPES: TypeDefinition[] = [
  {
    name: 'postgres', description: 'PostgreSQL', defaultImage: 'postgres', defaultPort: 5432,
    commands: [
      { name: 'ready', description: 'Check that the server accepts TCP connections', target: 'container', command: ['pg_isready', '-h', '127.0.0.1'] },
      { name: 'dump', description: 'Dump all databases to stdout', target: 'container', command: ['pg_dumpall', '-U', 'postgres'] },
      // custom format, compressed by pg_dump at level 1 on the database's server: half the bytes
      // cross the network and the controller stores the archive as written (docs/backups.md)
      { name: 'backup', description: 'Dump the database (custom format, compressed) to stdout', target: 'container', command: POSTGRES_BACKUP },
      { name: 'restore', description: 'Restore a custom-format dump from stdin, replacing what it holds', target: 'container', command: ['pg_restore', '--clean', '--if-exists', '--no-owner', '--exit-on-error', '-U', '{{user}}', '-d', '{{database}}'] },
      { name: 'query', description: 'Run one SQL query, printing bare values', target: 'container', command: ['psql', '-U', '{{user}}', '-d', '{{database}}', '-tAc', '{{query}}'] },
      { name: 'check', description: 'Count the tables outside the system schemas', target: 'container', command: ['psql', '-U', '{{user}}', '-d', '{{database}}', '-tAc', "select count(*) from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')"] },
      { name: 'size', description: 'Print the size of the database in bytes', target: 'container', command: ['psql', '-U', '{{user}}', '-d', '{{database}}', '-tAc', 'select pg_database_size(current_database())'] },
    ],
  },
  {
    name: 'mysql', description: 'MySQL', defaultImage: 'mysql', defaultPort: 3306,
    commands: [
      { name: 'ping', description: 'Check that the server answers', target: 'container', command: ['mysqladmin', 'ping'] },
      { name: 'ready', description: 'Check that the server accepts TCP connections', target: 'container', command: ['mysqladmin', '-h', '127.0.0.1', '-u', '{{user}}', 'ping'] },
      { name: 'backup', description: 'Dump the database as SQL to stdout', target: 'container', command: ['mysqldump', '--single-transaction', '--routines', '-u', '{{user}}', '{{database}}'] },
      { name: 'restore', description: 'Run an SQL dump from stdin', target: 'container', command: ['mysql', '-u', '{{user}}', '{{database}}'] },
      { name: 'query', description: 'Run one SQL query, printing bare values', target: 'container', command: ['mysql', '-N', '-u', '{{user}}', '-e', '{{query}}', '{{database}}'] },
      { name: 'check', description: 'Count the tables', target: 'container', command: ['mysql', '-N', '-u', '{{user}}', '-e', 'select count(*) from information_schema.tables where table_schema = database()', '{{database}}'] },
      { name: 'size', description: 'Print the size of the database in bytes', target: 'container', command: ['mysql', '-N', '-u', '{{user}}', '-e', 'select coalesce(sum(data_length + index_length), 0) from information_schema.tables where table_schema = database()', '{{database}}'] },
    ],
  },
  {
    name: 'mariadb', description: 'MariaDB', defaultImage: 'mariadb', defaultPort: 3306,
    commands: [
      { name: 'ping', description: 'Check that the server answers', target: 'container', command: ['mariadb-admin', 'ping'] },
      { name: 'ready', description: 'Check that the server accepts TCP connections', target: 'container', command: ['mariadb-admin', '-h', '127.0.0.1', '-u', '{{user}}', 'ping'] },
      { name: 'backup', description: 'Dump the database as SQL to stdout', target: 'container', command: ['mariadb-dump', '--single-transaction', '--routines', '-u', '{{user}}', '{{database}}'] },
      { name: 'restore', description: 'Run an SQL dump from stdin', target: 'container', command: ['mariadb', '-u', '{{user}}', '{{database}}'] },
      { name: 'query', description: 'Run one SQL query, printing bare values', target: 'container', command: ['mariadb', '-N', '-u', '{{user}}', '-e', '{{query}}', '{{database}}'] },
      { name: 'check', description: 'Count the tables', target: 'container', command: ['mariadb', '-N', '-u', '{{user}}', '-e', 'select count(*) from information_schema.tables where table_schema = database()', '{{database}}'] },
      { name: 'size', description: 'Print the size of the database in bytes', target: 'container', command: ['mariadb', '-N', '-u', '{{user}}', '-e', 'select coalesce(sum(data_length + index_length), 0) from information_schema.tables where table_schema = database()', '{{database}}'] },
    ],
  },
  {
    name: 'mongodb', description: 'MongoDB', defaultImage: 'mongo', defaultPort: 27017,
    commands: [{ name: 'ping', description: 'Check that the server answers', target: 'container', command: ['mongosh', '--quiet', '--eval', 'db.adminCommand("ping")'] }],
  },
  {
    name: 'redis', description: 'Redis', defaultImage: 'redis', defaultPort: 6379,
    commands: [{ name: 'ping', description: 'Check that the server answers', target: 'container', command: ['redis-cli', 'ping'] }],
  },
];
