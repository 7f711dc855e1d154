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

/** Seeded by migration 20261129C. */
export const DEFAULT_DATABASE_TYPES: TypeDefinition[] = [
  {
    name: 'postgres', description: 'PostgreSQL', defaultImage: 'postgres', defaultPort: 5432,
    commands: [
      { name: 'ready', description: 'Check that the server accepts connections', target: 'container', command: ['pg_isready'] },
      { name: 'dump', description: 'Dump all databases to stdout', target: 'container', command: ['pg_dumpall', '-U', 'postgres'] },
    ],
  },
  {
    name: 'mysql', description: 'MySQL', defaultImage: 'mysql', defaultPort: 3306,
    commands: [{ name: 'ping', description: 'Check that the server answers', target: 'container', command: ['mysqladmin', 'ping'] }],
  },
  {
    name: 'mariadb', description: 'MariaDB', defaultImage: 'mariadb', defaultPort: 3306,
    commands: [{ name: 'ping', description: 'Check that the server answers', target: 'container', command: ['mariadb-admin', 'ping'] }],
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
