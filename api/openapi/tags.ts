import { KINDS } from '../../controller/kinds/index.js';

/**
 * The tags of the kinds the generic CRUD routes serve (api/routes/kind-crud.ts), from their
 * descriptors: named by the URL segment, described by `api.tagDescription` or the kind's
 * `description`. A new kind's tag needs no line here.
 */
export const KIND_TAGS: Record<string, string> = Object.fromEntries(KINDS.filter((k) => k.api)
  .map((k) => [k.api!.path, k.api!.tagDescription ?? k.description]));

/**
 * The OpenAPI document's tags, in the order a reader meets them. Every tag a route uses must be
 * here: buildOpenApi refuses an undeclared one, so the document never lists an unexplained group.
 * The routes' own groups are written here; the generic kinds' tags come from KIND_TAGS.
 */
export const TAGS: Record<string, string> = {
  system: 'Health, this document, the CLI downloads and what the service knows about itself',
  auth: 'Register the first user, log in, and who the caller is',
  users: 'User accounts and their roles (viewer, operator, admin)',
  tokens: 'API tokens: role-capped, optionally limited to some environments, shown once',
  'service-accounts': 'Non-human callers that own API tokens',
  admin: 'Instance administration: SMTP, error tracking, MCP, plugins and exports',
  audit: 'Who did what, when: the audit log and its filters',
  environments: 'Environments: the unit of isolation for servers, services and their settings',
  settings: 'Per-environment settings modules',
  servers: 'Servers: registration over SSH or the local socket, health, bootstrap and operations',
  services: 'Services: what runs, where, with which image, and their operations',
  deployments: 'A service\'s deployments on servers: status, logs, artifacts and restarts',
  'deployment-plans': 'Plans that deploy services in dependency order, step by step, with their event streams',
  dependencies: 'Which service needs which, for deploy order and the topology',
  'container-images': 'Images, their tags and update policies, and the codehost webhook that publishes versions',
  'config-fragments': 'Reusable pieces of configuration files',
  'config-files': 'Configuration files and assets with revisions, diffs and restores',
  'config-attachments': 'Which configuration file goes where in which service',
  'config-sync': 'Pushing configuration files to servers and what was pushed',
  'config-scanner': 'Finding unresolved references in configuration files',
  backups: 'Database backups and restores, their schedules and downloads',
  storage: 'Object storage targets for backups and artifacts',
  manifests: 'Declarative manifests: diff, apply and status',
  webhooks: 'Incoming deploy webhooks and outgoing webhook subscriptions',
  notifications: 'Notification channels, rules and the notification inbox',
  events: 'The live event stream',
  monitoring: 'Server samples (collected over SSH or posted by the agent), metrics, health checks and alerts',
  ...KIND_TAGS,
  ingress: 'Where services are reached from outside: their certificates from ACME and the HTTP-01 challenge the CA fetches',
  topology: 'The environment\'s graph of servers, services, databases and external entities, its layout and Mermaid export',
};
