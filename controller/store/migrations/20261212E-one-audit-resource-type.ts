import type { Knex } from 'knex';

/** Earlier names of audit resource types -> the one naming (controller/audit/resource-types.ts). */
const RENAMED: Record<string, string> = {
  chat_channel: 'chat-channels', notification_routing: 'notification-routings', container_image: 'container-images',
  webhook_subscription: 'webhook-subscriptions', notification_preferences: 'notification-preferences',
  webhook: 'webhooks', service: 'services', environment: 'environments', package: 'packages',
  // Manifest applies recorded the kind's name.
  Environment: 'environments', Registry: 'registries', Server: 'servers', ContainerImage: 'container-images', Var: 'vars',
  Secret: 'secrets', ConfigFragment: 'config-fragments', ConfigFile: 'config-files', Service: 'services',
  WebhookSubscription: 'webhook-subscriptions',
};

export async function up(knex: Knex): Promise<void> {
  // Entries written before the naming was one keep being found by the one filter value.
  for (const [from, to] of Object.entries(RENAMED)) {
    await knex('audit_logs').where({ resource_type: from }).update({ resource_type: to });
  }
}

export async function down(): Promise<void> {
  // The old names were inconsistent; nothing to go back to.
}
