// The kinds the dashboard lists, creates, edits and deletes: which API operations serve them (by
// operationId: their paths and body schemas come from the OpenAPI document), how a row of the list
// reads, and which fields name other objects. The forms themselves are drawn from the schemas
// (components/schema-form.tsx); nothing here restates a field's type or its limits.
import type { ComponentChildren } from 'preact';
import { listAll } from './api';
import type { Need } from './router';
import type { Option } from './components/schema-form';
import type { Me } from './session';
import { HealthBadge, when } from './components/status';

export interface Column { label: string; cell(item: any): ComponentChildren }

/** A button on each row that runs an operation of the item (test a connection) and shows its answer. */
export interface ItemAction {
  label: string;
  op: string;
  body?: Record<string, unknown> | ((item: any, prepared?: any) => Record<string, unknown>);
  says(answer: any): string;
  /** Lowest role the API accepts for it, when above the page's editRole. */
  role?: Need;
  /** Shown only for the items this holds for. */
  when?(item: any): boolean;
  /** Asked first: the sentence shown with a confirm button (its label is confirmLabel). */
  confirm?(item: any, prepared?: any): string;
  confirmLabel?: string;
  /** An operation run before the confirm (a scan): its answer goes to confirm, body and offered. */
  prepare?: string;
  /** Whether the prepared answer leaves something to confirm (default: yes). */
  offered?(prepared: any): boolean;
}

export interface KindView {
  /** The page's address under /env/:envId/ and its title. */
  key: string;
  title: string;
  /** One object, in a sentence: 'server'. */
  noun: string;
  list: string;
  create?: string;
  update?: string;
  remove?: string;
  /** Lowest role that may see the page (default viewer) and change its objects (default operator); 'installation': an unrestricted admin. */
  viewRole?: Need;
  editRole?: Need;
  /** Who may create one, when the create route needs more than editRole (a new environment: an unrestricted admin). */
  createRole?: Need;
  /** The list's query for this caller (a lowered admin lists only their own tokens). */
  listQuery?(me: Me): string;
  name(item: any): string;
  columns: Column[];
  /** Fields of the bodies the forms leave out. */
  omit?: string[];
  actions?: ItemAction[];
  /** The object's own page, when it has one. */
  href?(envId: string, item: any): string;
  /** A field of the create answer that is shown once and never again (an API token). */
  shownOnce?: string;
  /** A create form of the kind's own, in place of the one drawn from its schema (it calls done when finished). */
  createForm?: (done: () => void) => ComponentChildren;
}

/** Fields that name another object by id, and where their choices come from. */
export const REFERENCES: Record<string, (envId: string, me: Me, signal: AbortSignal) => Promise<Option[]>> = {
  containerImageId: (envId, _me, signal) => options(`/api/environments/${envId}/container-images`, (i) => i.imageName, signal),
  registryConnectionId: (envId, _me, signal) => options(`/api/environments/${envId}/registries`, (r) => r.name, signal),
  serverId: (envId, _me, signal) => options(`/api/environments/${envId}/servers`, (s) => `${s.name} (${s.hostname})`, signal),
  serviceId: (envId, _me, signal) => options(`/api/environments/${envId}/services`, (s) => s.name, signal),
  // a lowered admin makes tokens for themselves only, limited to environments where they are admin
  ownerUserId: (_envId, me, signal) => (me.unrestricted ? options('/api/users', (u) => u.email, signal) : Promise.resolve([{ value: me.id, label: me.email ?? me.name ?? me.id }])),
  environmentIds: async (_envId, me) => me.environments.filter((e) => me.unrestricted || e.role === 'admin').map((e) => ({ value: e.id, label: e.name })),
};

async function options(path: string, label: (item: any) => string, signal: AbortSignal): Promise<Option[]> {
  return (await listAll(path, signal)).map((item) => ({ value: item.id, label: label(item) }));
}

const code = (v: unknown) => (v == null || v === '' ? '—' : String(v));
const list = (v: unknown[] | null | undefined) => (v?.length ? v.join(', ') : '—');
/** A server's labels (what a serverSelector matches) as key=value, one code each. */
const labels = (l: Record<string, string> | null | undefined) => {
  const entries = Object.entries(l ?? {});
  return entries.length ? <span data-labels>{entries.map(([k, v]) => <code class="label">{k}={v}</code>).reduce<ComponentChildren[]>((a, c) => [...a, a.length ? ' ' : '', c], [])}</span> : '—';
};

export const KIND_VIEWS: KindView[] = [
  {
    key: 'servers', title: 'Servers', noun: 'server', list: 'listServers', create: 'createServer', update: 'updateServer', remove: 'deleteServer',
    name: (s) => s.name,
    columns: [
      { label: 'Health', cell: (s) => <><HealthBadge status={s.health?.status} />{s.health?.message && <span class="reason"> {s.health.message}</span>}</> },
      { label: 'Address', cell: (s) => `${s.sshUser ? `${s.sshUser}@` : ''}${s.hostname}:${s.sshPort}` },
      { label: 'Labels', cell: (s) => labels(s.labels) },
      { label: 'Tags', cell: (s) => list(s.tags) },
      { label: 'Docker / metrics', cell: (s) => `${s.dockerMode} / ${s.metricsMode}` },
      { label: 'Host key', cell: (s) => code(s.hostKeyFingerprint) },
    ],
    actions: [{
      label: 'Test connection', op: 'testServerSsh', body: {},
      says: (r) => `${r.ok ? 'Connected' : 'Failed'}${r.latencyMs != null ? ` in ${r.latencyMs} ms` : ''}: ${r.message}${r.hostKeyFingerprint ? ` (host key ${r.hostKeyFingerprint})` : ''}`,
    }, {
      // after a rebuild the server presents a new key and is refused: read the key it presents
      // (as ssh-keyscan), show it to compare with the machine's console, and pin that one only
      label: 'Check host key', op: 'acceptServerHostKey', role: 'admin', prepare: 'scanServerHostKey', when: (s) => s.dockerMode !== 'socket',
      offered: (scan) => !!scan.presented && !scan.matches,
      confirm: (s, scan) => (!scan.presented
        ? `No key read from ${s.name}: ${scan.message}.`
        : scan.matches
          ? `${s.name} presents the pinned key ${scan.pinned} (${scan.presented.algorithm}): nothing to change.`
          : `${s.name} presents ${scan.presented.fingerprint} (${scan.presented.algorithm}); pinned: ${scan.pinned ?? 'none'}. `
            + 'Pin the presented key? Compare it first with the machine\'s own (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub on its console).'),
      confirmLabel: 'Pin the presented key',
      body: (s, scan) => ({ fingerprint: scan.presented.fingerprint, replaces: s.hostKeyFingerprint ?? null }),
      says: (s) => `Pinned ${s.hostKeyFingerprint}: connections now expect this key.`,
    }],
  },
  {
    key: 'services', title: 'Services', noun: 'service', list: 'listServices', create: 'createService', remove: 'deleteService',
    name: (s) => s.name,
    href: (envId, s) => `/env/${envId}/services/${s.id}`,
    columns: [
      { label: 'Tag', cell: (s) => code(s.imageTag) },
      { label: 'Ports', cell: (s) => list(s.ports) },
      { label: 'Update order', cell: (s) => s.updateOrder },
    ],
  },
  {
    key: 'images', title: 'Images', noun: 'image', list: 'listContainerImages', create: 'createContainerImage', update: 'updateContainerImage', remove: 'deleteContainerImage',
    name: (i) => i.imageName,
    columns: [
      { label: 'Auto-update', cell: (i) => (i.autoUpdate ? 'on' : 'off') },
      { label: 'Version policy', cell: (i) => (i.policy ? `${i.policy.type}${i.policy.range ? ` ${i.policy.range}` : ''}` : '—') },
    ],
  },
  {
    key: 'registries', title: 'Registries', noun: 'registry', list: 'listRegistries', create: 'createRegistry', update: 'updateRegistry', remove: 'deleteRegistry',
    name: (r) => r.name,
    columns: [
      { label: 'URL', cell: (r) => r.registryUrl },
      { label: 'Type', cell: (r) => r.type },
      { label: 'Credentials', cell: (r) => [r.hasToken && 'token set', r.hasPassword && 'password set'].filter(Boolean).join(', ') || 'none' },
    ],
    actions: [{ label: 'Test', op: 'testRegistry', says: (r) => `${r.ok ? 'OK' : 'Failed'}: ${r.message}` }],
  },
  {
    key: 'volumes', title: 'Volumes', noun: 'volume', list: 'listVolumes', create: 'createVolume', update: 'updateVolume', remove: 'deleteVolume',
    name: (v) => v.name,
    columns: [
      { label: 'Docker volume', cell: (v) => v.dockerName },
      { label: 'Backup', cell: (v) => (v.backup ? `${v.backup.schedule} (${v.backup.consistency ?? 'stop'})` : 'none') },
      { label: 'Degraded', cell: (v) => (v.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Degraded')?.message ?? '' },
    ],
    actions: [{ label: 'Back up now', op: 'createVolumeBackup', says: (b) => `Backup ${b.status}: ${b.id}` }],
  },
  {
    key: 'secrets', title: 'Secrets', noun: 'secret', list: 'listSecrets', create: 'createSecret', update: 'updateSecret', remove: 'deleteSecret',
    name: (s) => s.key,
    columns: [
      { label: 'Value', cell: (s) => (s.hasValue ? 'set (never shown)' : 'not set') },
      { label: 'Description', cell: (s) => code(s.description) },
      { label: 'Used by', cell: (s) => list([...(s.usage?.services ?? []), ...(s.usage?.configFiles ?? [])].map((u: any) => u.name)) },
    ],
  },
  {
    key: 'vars', title: 'Vars', noun: 'var', list: 'listVars', create: 'createVar', update: 'updateVar', remove: 'deleteVar',
    name: (v) => v.key,
    columns: [
      { label: 'Value', cell: (v) => v.value },
      { label: 'Description', cell: (v) => code(v.description) },
    ],
  },
  {
    key: 'webhooks', title: 'Webhooks', noun: 'webhook', list: 'listWebhookSubscriptions', create: 'createWebhookSubscription',
    update: 'updateWebhookSubscription', remove: 'deleteWebhookSubscription',
    name: (w) => w.name,
    columns: [
      { label: 'URL', cell: (w) => w.url },
      { label: 'Events', cell: (w) => list(w.eventTypes) },
      { label: 'State', cell: (w) => `${w.enabled ? 'enabled' : 'disabled'}${w.failed ? ', failing' : ''}` },
    ],
    actions: [{ label: 'Send a test', op: 'testWebhookSubscription', says: (r) => (r.delivered ? `Delivered (HTTP ${r.status})` : `Not delivered${r.status ? ` (HTTP ${r.status})` : ''}`) }],
  },
  {
    key: 'config-files', title: 'Config files', noun: 'config file', list: 'listConfigFiles', create: 'createConfigFile', update: 'updateConfigFile',
    remove: 'deleteConfigFile',
    name: (f) => f.name,
    columns: [
      { label: 'Description', cell: (f) => code(f.description) },
      { label: 'Attached', cell: (f) => `${(f.attachments ?? []).length} time(s)` },
    ],
  },
  {
    key: 'config-fragments', title: 'Config fragments', noun: 'config fragment', list: 'listConfigFragments', create: 'createConfigFragment',
    update: 'updateConfigFragment', remove: 'deleteConfigFragment',
    name: (f) => f.name,
    columns: [{ label: 'Description', cell: (f) => code(f.description) }],
  },
  {
    key: 'databases', title: 'Databases', noun: 'database', list: 'listDatabases', create: 'createDatabase', update: 'updateDatabase',
    remove: 'deleteDatabase',
    name: (d) => d.name,
    columns: [
      { label: 'Type', cell: (d) => d.type },
      { label: 'Where', cell: (d) => (d.containerName ? `container ${d.containerName}` : d.host ? `${d.host}:${d.port ?? ''}` : '—') },
      { label: 'Database', cell: (d) => code(d.databaseName) },
      { label: 'Monitored', cell: (d) => (d.monitoringEnabled ? `every ${d.collectionIntervalSec} s` : 'no') },
    ],
    actions: [{ label: 'Test', op: 'testDatabase', says: (r) => `${r.ok ? 'Reached' : 'Failed'}${r.message ? `: ${r.message}` : ''}` }],
  },
  {
    // its runs are listed under the table (pages/jobs.tsx)
    key: 'jobs', title: 'Jobs', noun: 'job', list: 'listJobs', create: 'createJob', update: 'updateJob', remove: 'deleteJob',
    name: (j) => j.name,
    columns: [
      { label: 'Schedule', cell: (j) => <><code>{j.schedule}</code>{j.timeZone && ` (${j.timeZone})`}</> },
      { label: 'Command', cell: (j) => <code>{(j.command ?? []).join(' ')}</code> },
      { label: 'Policy', cell: (j) => j.concurrencyPolicy },
      { label: 'Next', cell: (j) => (!j.enabled ? 'disabled' : j.nextRunAt ? when(j.nextRunAt) : 'being scheduled') },
    ],
    actions: [{ label: 'Run now', op: 'triggerJob', says: (r) => `Started run ${r.runId}` }],
  },
  {
    key: 'chat-channels', title: 'Chat channels', noun: 'chat channel', list: 'listChatChannels', create: 'createChatChannel',
    update: 'updateChatChannel', remove: 'deleteChatChannel', viewRole: 'installation', editRole: 'installation',
    name: (c) => c.name,
    columns: [
      { label: 'Webhook URL', cell: (c) => (c.hasWebhookUrl ? 'set (never shown)' : 'not set') },
      { label: 'State', cell: (c) => `${c.enabled ? 'enabled' : 'disabled'}${c.isDefault ? ', default' : ''}` },
    ],
    actions: [{ label: 'Send a test', op: 'testChatChannel', says: (r) => `${r.delivered ?? r.ok ? 'Delivered' : 'Not delivered'}${r.status ? ` (HTTP ${r.status})` : ''}${r.message ? `: ${r.message}` : ''}` }],
  },
  {
    key: 'outgoing-webhooks', title: 'Outgoing webhooks', noun: 'outgoing webhook', list: 'listOutgoingWebhooks', create: 'createOutgoingWebhook',
    update: 'updateOutgoingWebhook', remove: 'deleteOutgoingWebhook', viewRole: 'installation', editRole: 'installation',
    name: (w) => w.name,
    columns: [
      { label: 'URL', cell: (w) => w.url },
      { label: 'Events', cell: (w) => list(w.eventTypes) },
      { label: 'Environments', cell: (w) => (w.environmentIds?.length ? `${w.environmentIds.length}` : 'all') },
      { label: 'State', cell: (w) => (w.enabled ? 'enabled' : 'disabled') },
    ],
    actions: [{ label: 'Send a test', op: 'testOutgoingWebhook', says: (r) => (r.delivered ? `Delivered (HTTP ${r.status})` : `Not delivered${r.status ? ` (HTTP ${r.status})` : ''}`) }],
  },
  {
    key: 'users', title: 'Users', noun: 'user', list: 'listUsers', create: 'createUser', update: 'updateUser', remove: 'deleteUser',
    viewRole: 'installation', editRole: 'installation',
    name: (u) => u.email,
    columns: [
      { label: 'Name', cell: (u) => code(u.name) },
      { label: 'Role', cell: (u) => u.role },
      { label: 'Last sign-in', cell: (u) => (u.lastLoginAt ? when(u.lastLoginAt) : 'never') },
    ],
  },
  {
    key: 'tokens', title: 'API tokens', noun: 'API token', list: 'listApiTokens', create: 'createApiToken', remove: 'deleteApiToken',
    viewRole: 'admin', editRole: 'admin', shownOnce: 'token',
    // everyone's tokens for an unrestricted admin; a lowered admin's own (the API refuses the rest)
    listQuery: (me) => (me.unrestricted ? '' : `?ownerUserId=${encodeURIComponent(me.id)}`),
    name: (t) => t.name,
    omit: ['ownerServiceAccountId'],
    columns: [
      { label: 'Prefix', cell: (t) => t.tokenPrefix },
      { label: 'Role cap', cell: (t) => code(t.role) },
      { label: 'Expires', cell: (t) => (t.expiresAt ? when(t.expiresAt) : 'never') },
      { label: 'Last used', cell: (t) => (t.lastUsedAt ? when(t.lastUsedAt) : 'never') },
      { label: 'State', cell: (t) => (t.revokedAt ? `revoked ${when(t.revokedAt)}` : 'active') },
    ],
  },
];
