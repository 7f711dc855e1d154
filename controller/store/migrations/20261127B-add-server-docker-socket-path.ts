import type { Knex } from 'knex';

// Path of the Docker socket: local in socket mode (the controller's own machine), remote in ssh
// mode. Null means /var/run/docker.sock.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('servers', (t) => {
    t.text('docker_socket_path');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('servers', (t) => {
    t.dropColumn('docker_socket_path');
  });
}
