import type { SystemSettingsRepository } from '../store/repositories/system-settings.js';
import { arrayOf, int, nullable, str, type Schema } from '../kinds/schema.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { maskSecret } from '../crypto/redact.js';

/** The system-wide settings (interface spec, System settings) and the retention knobs. */
export interface SystemSettingsValues {
  /** Total delivery attempts of an outgoing webhook, including the first. */
  webhookMaxRetries: number;
  webhookTimeoutMs: number;
  /** Delays before each retry, ms; the last one repeats when there are more retries than delays. */
  webhookRetryDelaysMs: number[];
  auditLogRetentionDays: number;
  healthLogRetentionDays: number;
  notificationRetentionDays: number;
  deploymentHistoryRetentionDays: number;
  /**
   * Hosts, addresses or CIDRs that outgoing requests (webhooks, chat, registries, object storage)
   * may reach although they are loopback, link-local or the controller's own; null: the
   * OUTGOING_ALLOW_LIST variable's list (controller/net/outgoing-guard.ts).
   */
  outgoingAllowList: string[] | null;
}

export const SYSTEM_DEFAULTS: SystemSettingsValues = {
  webhookMaxRetries: 3,
  webhookTimeoutMs: 30_000,
  webhookRetryDelaysMs: [1000, 5000, 15000],
  auditLogRetentionDays: 365,
  healthLogRetentionDays: 30,
  notificationRetentionDays: 90,
  deploymentHistoryRetentionDays: 180,
  outgoingAllowList: null,
};

// each field's description is the help the dashboard's System settings page shows under it
export const SYSTEM_FIELDS: Record<keyof SystemSettingsValues, Schema> = {
  webhookMaxRetries: int(1, 10, { description: 'Delivery attempts of an outgoing webhook, the first included' }),
  webhookTimeoutMs: int(100, 120_000, { description: 'How long one delivery attempt may take, in milliseconds' }),
  webhookRetryDelaysMs: arrayOf(int(0, 3_600_000), {
    minItems: 1, maxItems: 20, description: 'Milliseconds to wait before each retry; the last one repeats when there are more retries than delays',
  }),
  auditLogRetentionDays: int(1, 3650, { description: 'Days an audit log entry is to be kept. Stored only: no sweep removes audit entries yet, they are all kept' }),
  healthLogRetentionDays: int(1, 3650, { description: 'Days a health check result is kept (its daily partitions are dropped after that)' }),
  notificationRetentionDays: int(1, 3650, { description: 'Days an in-app notification is kept' }),
  deploymentHistoryRetentionDays: int(1, 3650, { description: 'Days a finished deployment plan is to be kept. Stored only: no sweep removes plans yet, they are all kept' }),
  outgoingAllowList: nullable(arrayOf(str({ minLength: 1, maxLength: 260 }), {
    maxItems: 100,
    description: 'Hosts, IP addresses or CIDRs (127.0.0.1, registry.lan, 10.250.0.0/16) that outgoing requests (registries, webhooks, chat, '
      + 'object storage, Git sources) may reach although they are loopback, link-local, unspecified or an address of the controller\'s own; '
      + 'none (null): the OUTGOING_ALLOW_LIST variable\'s list; an empty list allows none of them',
  })),
};

/** Write-only: stored encrypted, read back masked. */
export const REGISTRY_TOKEN_FIELD: Schema = { ...nullable(str({ minLength: 1, maxLength: 8192 })), writeOnly: true, description: 'Token sent to registries that ask for one (write-only: read back masked; null removes it)' };

/** Shows that a token is set without showing any character of it (controller/crypto/redact.ts). */
export const maskToken = maskSecret;

const CACHE_MS = 5_000;

/**
 * Reads and writes the single system_settings row. `get()` is what the rest of the controller
 * uses (webhook delivery, retention sweeps); it caches for a few seconds, and a write through
 * this object is seen at once by its own process.
 */
export class SystemSettings {
  private cached: { at: number; values: SystemSettingsValues } | null = null;

  constructor(private readonly store: SystemSettingsRepository<SystemSettingsValues>, private readonly secretBox: SecretBox) {}

  private row() {
    return this.store.row();
  }

  /** The current settings with defaults filled in. */
  async get(): Promise<SystemSettingsValues> {
    if (this.cached && Date.now() - this.cached.at < CACHE_MS) return this.cached.values;
    const { values } = await this.row();
    const merged = { ...SYSTEM_DEFAULTS, ...pickKnown(values) };
    this.cached = { at: Date.now(), values: merged };
    return merged;
  }

  /** Drops the cached values (another replica changed them: controller/events/cache-invalidation.ts). */
  forget(): void {
    this.cached = null;
  }

  /** The registry access token in clear, for the code that talks to registries. */
  async registryAccessToken(): Promise<string | null> {
    const { registryAccessTokenEnc } = await this.row();
    return registryAccessTokenEnc ? this.secretBox.open(registryAccessTokenEnc) : null;
  }

  /** What GET /api/settings/system answers: values plus the masked token. */
  async read() {
    const row = await this.row();
    const token = row.registryAccessTokenEnc ? this.secretBox.open(row.registryAccessTokenEnc) : null;
    return {
      ...SYSTEM_DEFAULTS, ...pickKnown(row.values),
      registryAccessToken: maskToken(token),
      hasRegistryAccessToken: token !== null,
      updatedAt: row.updatedAt,
    };
  }

  async patch(changes: Partial<SystemSettingsValues> & { registryAccessToken?: string | null }) {
    const { registryAccessToken, ...values } = changes;
    await this.store.update((stored) => ({
      values: { ...pickKnown(stored), ...values },
      ...(registryAccessToken !== undefined && { registryAccessTokenEnc: this.secretBox.sealOrNull(registryAccessToken) }),
    }));
    this.cached = null;
    return this.read();
  }
}

function pickKnown(values: Partial<SystemSettingsValues>): Partial<SystemSettingsValues> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(SYSTEM_DEFAULTS)) if (k in (values ?? {})) out[k] = (values as Record<string, unknown>)[k];
  return out as Partial<SystemSettingsValues>;
}
