import type { Knex } from 'knex';

export interface DeliverySettings {
  /** Total attempts including the first. */
  webhookMaxRetries: number;
  webhookTimeoutMs: number;
  /** Delay before retry n is element n-1; the last repeats. */
  webhookRetryDelaysMs: number[];
}

export const DELIVERY_DEFAULTS: DeliverySettings = { webhookMaxRetries: 3, webhookTimeoutMs: 30_000, webhookRetryDelaysMs: [1000, 5000, 15000] };

type SystemSettingsLike = { get(): Promise<Partial<DeliverySettings>> };

/**
 * The webhook delivery knobs of the system settings, through the systemSettings service (without
 * one, e.g. in a bare test harness, it reads the system_settings row directly, cached briefly).
 */
export class DeliverySettingsReader {
  private cached: { at: number; value: DeliverySettings } | null = null;

  constructor(private readonly db: Knex, private readonly service?: SystemSettingsLike, private readonly cacheMs = 2_000) {}

  /** Forget the cached value (after a settings write in this process). */
  clear(): void {
    this.cached = null;
    this.generation++;
  }

  private generation = 0;

  async get(): Promise<DeliverySettings> {
    // The systemSettings service caches (and forgets on its own writes): no second cache on top.
    if (this.service) return normalize(await this.service.get());
    if (this.cached && Date.now() - this.cached.at < this.cacheMs) return this.cached.value;
    const generation = this.generation;
    const row = await this.db('system_settings').where('id', 1).first('values');
    const raw = (row?.values ?? {}) as Partial<DeliverySettings>;
    const value = normalize(raw);
    if (generation === this.generation) this.cached = { at: Date.now(), value };
    return value;
  }
}

export function normalize(raw: Partial<DeliverySettings>): DeliverySettings {
  const n = (v: unknown, d: number, min: number) => (typeof v === 'number' && Number.isFinite(v) && v >= min ? Math.floor(v) : d);
  const delays = Array.isArray(raw.webhookRetryDelaysMs) && raw.webhookRetryDelaysMs.length
    && raw.webhookRetryDelaysMs.every((d) => typeof d === 'number' && d >= 0)
    ? raw.webhookRetryDelaysMs : DELIVERY_DEFAULTS.webhookRetryDelaysMs;
  return {
    webhookMaxRetries: n(raw.webhookMaxRetries, DELIVERY_DEFAULTS.webhookMaxRetries, 1),
    webhookTimeoutMs: n(raw.webhookTimeoutMs, DELIVERY_DEFAULTS.webhookTimeoutMs, 1),
    webhookRetryDelaysMs: delays,
  };
}

/** The delay before the next attempt after `attempts` failed ones (1-based). */
export const retryDelay = (s: DeliverySettings, attempts: number) =>
  s.webhookRetryDelaysMs[Math.min(attempts - 1, s.webhookRetryDelaysMs.length - 1)];
