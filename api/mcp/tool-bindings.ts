import { KINDS } from '../../controller/kinds/index.js';
import { kindCollectionPath } from '../routes/kind-crud.js';

/**
 * The MCP tools the interface spec names, each bound to the one API route it replays. Only the
 * name and the route live here: the input schema, the description, who may call it and whether
 * it writes all come from the route spec itself (tool-catalog.ts). A tool whose route is not in
 * the route table yet (databases, metrics, topology) is simply absent until the route lands.
 * The kinds of the generic CRUD routes get theirs from their descriptors (KIND_TOOL_BINDINGS).
 */
export interface ToolBinding {
  name: string;
  /** "METHOD /path" as the route spec writes it; the first one present in the route table wins. */
  routes: string[];
  /** Tool argument names for path parameters, where the spec names them differently. */
  argOfParam?: Record<string, string>;
  /** Reshapes a successful answer before the agent sees it (a projection, never an addition). */
  project?: (body: unknown) => unknown;
}

/** vars: the plaintext value field is removed in the MCP projection (spec, read routes). */
function withoutVarValues(body: unknown): unknown {
  const page = body as { items?: Array<Record<string, unknown>> };
  if (!page || !Array.isArray(page.items)) return body;
  return { ...page, items: page.items.map(({ value: _value, ...rest }) => rest) };
}

const read = (name: string, route: string, extra: Partial<ToolBinding> = {}): ToolBinding =>
  ({ name, routes: [`GET ${route}`], ...extra });
const write = (name: string, route: string): ToolBinding => ({ name, routes: [`POST ${route}`] });

/** 'external-entities' -> 'list_external_entities': the spec's names for the topology kinds. */
export const kindListToolName = (path: string): string => `list_${path.replace(/-/g, '_')}`;

/**
 * One list tool for each kind the generic CRUD routes serve, bound to its collection route, so a
 * new kind is never missing from MCP. Reads only: MCP offers no create, update or delete.
 */
export const KIND_TOOL_BINDINGS: ToolBinding[] = KINDS.filter((k) => k.api)
  .map((k) => read(kindListToolName(k.api!.path), kindCollectionPath(k.api!), k.kind === 'Var' ? { project: withoutVarValues } : {}));

export const TOOL_BINDINGS: ToolBinding[] = [
  // read tools
  read('list_environments', '/api/environments'),
  read('get_environment', '/api/environments/{id}'),
  read('list_servers', '/api/environments/{envId}/servers'),
  read('get_server', '/api/servers/{id}'),
  read('get_server_health', '/api/environments/{envId}/health-status'),
  read('list_services', '/api/environments/{envId}/services'),
  read('get_service', '/api/services/{id}'),
  read('get_service_logs', '/api/services/{id}/deployments/{depId}/logs'),
  read('get_service_compose', '/api/services/{id}/compose/preview'),
  read('get_service_dependencies', '/api/services/{id}/dependencies'),
  read('list_service_revisions', '/api/services/{id}/revisions'),
  read('get_service_revision', '/api/services/{id}/revisions/{revision}'),
  read('diff_service_revisions', '/api/services/{id}/revisions/diff'),
  read('get_dependency_graph', '/api/environments/{envId}/dependency-graph'),
  read('list_config_files', '/api/environments/{envId}/config-files'),
  read('get_config_file', '/api/config-files/{id}'),
  read('list_config_fragments', '/api/environments/{envId}/config-fragments'),
  read('get_database', '/api/databases/{id}'),
  read('list_database_backups', '/api/databases/{id}/backups'),
  read('list_container_images', '/api/environments/{envId}/container-images'),
  read('get_container_image', '/api/container-images/{id}'),
  read('list_image_digests', '/api/container-images/{id}/digests'),
  read('get_registry', '/api/registries/{id}'),
  read('get_topology', '/api/environments/{envId}/topology', { argOfParam: { envId: 'environmentId' } }),
  // list_registries, list_secrets, list_vars (without values), list_databases, list_server_clusters, list_external_entities, list_connections and any newer kind's
  ...KIND_TOOL_BINDINGS,
  read('list_service_types', '/api/settings/service-types'),
  read('list_database_types', '/api/settings/database-types'),
  read('list_notifications', '/api/notifications'),
  read('list_webhook_subscriptions', '/api/environments/{envId}/webhooks'),
  read('get_server_metrics', '/api/servers/{id}/metrics'),
  read('get_service_metrics', '/api/services/{id}/metrics'),
  read('get_metrics_history', '/api/environments/{envId}/metrics/history'),
  // The spec's read table says health-logs; DECISIONS.md (monitoring) says health-checks.
  { name: 'list_health_checks', routes: ['GET /api/environments/{envId}/health-checks', 'GET /api/environments/{envId}/health-logs'] },
  read('get_deployments', '/api/services/{id}/deployments-history'),
  read('list_deployment_plans', '/api/environments/{envId}/deployment-plans'),
  read('get_deployment_plan', '/api/deployment-plans/{id}'),
  read('get_drift', '/api/servers/{id}/drift'),
  read('get_system_settings', '/api/settings/system'),
  read('query_audit_log', '/api/audit-logs'),
  read('get_version', '/health'),
  // admin-gated read tools (the gate is the route's own access)
  read('get_environment_settings', '/api/environments/{envId}/settings/{module}', { argOfParam: { envId: 'id' } }),
  read('list_service_accounts', '/api/admin/service-accounts'),
  read('list_api_tokens', '/api/admin/tokens'),
  // write tools
  write('deploy_service', '/api/services/{id}/deploy'),
  write('execute_deployment_plan', '/api/deployment-plans/{id}/execute'),
  write('restart_deployment', '/api/services/{id}/deployments/{depId}/restart'),
  write('rollback_deployment_plan', '/api/deployment-plans/{id}/rollback'),
  write('revert_service_revision', '/api/services/{id}/revisions/{revision}/revert'),
  write('heal_deployment', '/api/services/{id}/deployments/{depId}/heal'),
  write('run_database_backup', '/api/databases/{id}/backups'),
  write('sync_config_file', '/api/config-files/{id}/sync-all'),
  write('refresh_server_health', '/api/servers/{id}/health'),
  write('execute_sync_batch', '/api/sync/batch'),
];
