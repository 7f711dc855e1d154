import type { Knex } from 'knex';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { ChainFacts } from '../../ingress/acme/certificate-facts.js';

export type CertificateState = 'none' | 'pending' | 'issued' | 'failed';

/** One environment's certificate for one host, as stored (chain and key sealed). */
export interface CertificateRow {
  id: string;
  environmentId: string;
  host: string;
  state: CertificateState;
  chainSealed: string | null;
  keySealed: string | null;
  issuer: string | null;
  serial: string | null;
  notAfter: Date | null;
  issuedAt: Date | null;
  /** The CA's problem detail (or the connection's error) of the last failed order; null once one succeeds. */
  error: string | null;
  /** Failed orders in a row: the retry wait doubles with each. */
  failures: number;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
}

/** What a listing shows of a certificate: never the chain or the key. */
export type CertificateView = Pick<CertificateRow, 'host' | 'state' | 'issuer' | 'serial' | 'notAfter' | 'issuedAt' | 'error' | 'lastAttemptAt' | 'nextAttemptAt'>;

/** A certificate opened for the proxy that serves its host. */
export interface InstalledCertificate { host: string; certPem: string; keyPem: string; notAfter: Date }

/** A host a service of the environment wants a certificate for. */
export interface DesiredHost { environmentId: string; host: string }

const VIEW_COLUMNS = ['host', 'state', 'issuer', 'serial', 'notAfter', 'issuedAt', 'error', 'lastAttemptAt', 'nextAttemptAt'] as const;

/**
 * The certificates table: one row per (environment, host), issued once for every server that
 * serves the host. The chain and key are sealed here and opened only by `installed` (the proxy's
 * read); listings select their columns without them.
 */
export class CertificatesRepository {
  /** Whether services have their `ingress` column yet (it lands with the proxy's migration). */
  private ingressColumn: Promise<boolean> | null = null;

  constructor(private readonly db: Knex, private readonly box: SecretBox) {}

  async listByEnvironment(environmentId: string): Promise<CertificateView[]> {
    return this.db('certificates').where({ environmentId }).select(...VIEW_COLUMNS).orderBy('host') as Promise<CertificateView[]>;
  }

  async find(environmentId: string, host: string): Promise<CertificateRow | undefined> {
    return this.db('certificates').where({ environmentId, host }).first() as Promise<CertificateRow | undefined>;
  }

  async listAll(): Promise<CertificateRow[]> {
    return this.db('certificates').select('*') as Promise<CertificateRow[]>;
  }

  /** The row of (environment, host), made in state `none` when there is none yet. */
  async ensure(environmentId: string, host: string): Promise<CertificateRow> {
    await this.db('certificates').insert({ environmentId, host }).onConflict(['environmentId', 'host']).ignore();
    return (await this.find(environmentId, host))!;
  }

  /** An order is under way: whatever chain the row holds stays in place until a new one is stored. */
  async markPending(environmentId: string, host: string): Promise<void> {
    await this.db('certificates').where({ environmentId, host })
      .update({ state: 'pending', lastAttemptAt: this.db.fn.now(), updatedAt: this.db.fn.now() });
  }

  async storeIssued(environmentId: string, host: string, chainPem: string, keyPem: string, facts: ChainFacts): Promise<void> {
    await this.db('certificates').where({ environmentId, host }).update({
      state: 'issued', chainSealed: this.box.seal(chainPem), keySealed: this.box.seal(keyPem),
      issuer: facts.issuer, serial: facts.serial, notAfter: facts.notAfter, issuedAt: this.db.fn.now(),
      error: null, failures: 0, nextAttemptAt: null, updatedAt: this.db.fn.now(),
    });
  }

  /**
   * A failed order: state `failed` with the error, the chain and key in place, the next attempt
   * `retryDelaySec(failures)` from now. Returns the failures in a row, this one counted.
   */
  async recordFailure(environmentId: string, host: string, error: string, retryDelaySec: (failures: number) => number): Promise<number> {
    return this.db.transaction(async (trx) => {
      const row = await trx('certificates').where({ environmentId, host }).forUpdate().first() as CertificateRow | undefined;
      const failures = (row?.failures ?? 0) + 1;
      await trx('certificates').where({ environmentId, host }).update({
        state: 'failed', error: error.slice(0, 2000), failures, updatedAt: trx.fn.now(),
        nextAttemptAt: trx.raw('now() + make_interval(secs => ?)', [retryDelaySec(failures)]),
      });
      return failures;
    });
  }

  /** The certificates held for `hosts` of the environment, opened: what the proxy installs. */
  async installed(environmentId: string, hosts: string[]): Promise<InstalledCertificate[]> {
    if (!hosts.length) return [];
    const rows = await this.db('certificates').where({ environmentId }).whereIn('host', hosts.map((h) => h.toLowerCase()))
      .whereNotNull('chainSealed').whereNotNull('keySealed').select('host', 'chainSealed', 'keySealed', 'notAfter') as CertificateRow[];
    return rows.map((r) => ({ host: r.host, certPem: this.box.open(r.chainSealed!), keyPem: this.box.open(r.keySealed!), notAfter: r.notAfter! }));
  }

  /** Each held certificate's expiry with its environment's name: a gauge of /metrics. */
  async expiries(): Promise<Array<{ environment: string; host: string; notAfter: Date }>> {
    return this.db('certificates as c').join('environments as e', 'e.id', 'c.environmentId').whereNotNull('c.notAfter')
      .select('e.name as environment', 'c.host', 'c.notAfter') as Promise<Array<{ environment: string; host: string; notAfter: Date }>>;
  }

  /**
   * Removes the certificates of hosts no service wants any more (`desired` is every wanted host,
   * desiredHosts() of all environments); nothing while services have no `ingress` column, as
   * then nothing can be told wanted. Returns how many went.
   */
  async pruneUnwanted(desired: DesiredHost[]): Promise<number> {
    if (!(await this.hasIngress())) return 0;
    const q = this.db('certificates');
    if (desired.length) q.whereNotIn(['environmentId', 'host'], desired.map((d) => [d.environmentId, d.host]));
    return q.delete();
  }

  private async hasIngress(): Promise<boolean> {
    this.ingressColumn ??= this.db.schema.hasColumn('services', 'ingress');
    if (await this.ingressColumn) return true;
    this.ingressColumn = null; // looked at again next time: a migration may add it while this process runs
    return false;
  }

  /**
   * The hosts services want a certificate for (`ingress.hosts` with `tls` auto, its default), of
   * one environment or of all. None while services have no `ingress` column.
   */
  async desiredHosts(environmentId?: string): Promise<DesiredHost[]> {
    if (!(await this.hasIngress())) return [];
    const q = this.db('services').whereNotNull('ingress').select('environmentId', 'ingress');
    if (environmentId) q.where({ environmentId });
    const rows = await q as Array<{ environmentId: string; ingress: { hosts?: unknown; tls?: unknown } | null }>;
    const seen = new Set<string>();
    const out: DesiredHost[] = [];
    for (const r of rows) {
      const tls = r.ingress?.tls ?? 'auto';
      if (tls !== 'auto' || !Array.isArray(r.ingress?.hosts)) continue;
      for (const h of r.ingress.hosts) {
        if (typeof h !== 'string') continue;
        const host = h.toLowerCase();
        const key = `${r.environmentId}/${host}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ environmentId: r.environmentId, host });
      }
    }
    return out;
  }
}
