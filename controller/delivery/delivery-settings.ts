export interface DeliverySettings {
  /** Total attempts including the first. */
  webhookMaxRetries: number;
  webhookTimeoutMs: number;
  /** Delay before retry n is element n-1; the last repeats. */
  webhookRetryDelaysMs: number[];
}

export const DELIVERY_DEFAULTS: DeliverySettings = { webhookMaxRetries: 3, webhookTimeoutMs: 30_000, webhookRetryDelaysMs: [1000, 5000, 15000] };

type SystemSettingsLike = { get(): Promise<Partial<DeliverySettings>> };

/** The webhook delivery knobs of the system settings (the systemSettings service caches them). */
export class DeliverySettingsReader {
  constructor(private readonly service: SystemSettingsLike) {}

  async get(): Promise<DeliverySettings> {
    return normalize(await this.service.get());
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
