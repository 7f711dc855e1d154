import { oidcConfigOf, type OidcConfig } from '../auth/oidc-config.js';
import { ConfigError, parseBoolean, parseInteger, parseList } from './parse-env.js';
import { parseAllowEntry } from '../net/outgoing-guard.js';

function parseAllowList(raw: string | undefined): string[] {
  const entries = parseList(raw);
  const bad = entries.find((e) => !parseAllowEntry(e));
  if (bad !== undefined) throw new ConfigError(`OUTGOING_ALLOW_LIST: '${bad}' is not a host name, an IP address or a CIDR`);
  return entries;
}
import { ensureStateDir, generatedKey } from './state-dir.js';
import { VERSION } from '../version.js';
import { DEFAULT_PASSWORD_HASH_COST, MIN_PASSWORD_HASH_COST } from '../crypto/password.js';

export interface SchedulerConfig {
  healthCheckSec: number;
  driftCheckSec: number;
  resyncSec: number;
  imageUpdateCheckSec: number;
  /** How often due database backups and restore drills are looked for. */
  backupSec: number;
  /** How often servers are sampled: the SSH collector's cycle, and the interval the agent is told. */
  metricsSec: number;
  /** How often metrics partitions are created ahead and those past retention dropped. */
  metricsRetentionSec: number;
  /** How often scheduled jobs' due occurrences are looked for (an occurrence starts at most this late). */
  jobsSec: number;
  /** How often the Git sources' poller looks for sources whose poll interval has passed. */
  gitPollSec: number;
  /** How often hosts without a certificate, certificates due for renewal and failed ones due a retry are looked for. */
  certificateSec: number;
}

/** Where certificates come from (docs/ingress.md#certificates): an ACME directory, HTTP-01. */
export interface AcmeConfig {
  /** ACME_DIRECTORY_URL: Let's Encrypt production unless set (a staging or private CA, Pebble in tests). */
  directoryUrl: string;
  /** ACME_EMAIL: the account's contact, told of expiry by CAs that still mail; none when unset. */
  email: string | null;
  /** ACME_CA_CERT_FILE: PEM trusted, besides the system's roots, for the connection to the directory (a private CA, Pebble). */
  caCertFile: string | null;
  /** ACME_RENEW_BEFORE_DAYS (30): a certificate is renewed once its notAfter is this close. */
  renewBeforeDays: number;
  /** ACME_RETRY_BASE_SEC (60): the first wait after a failed order; it doubles per failure, up to six hours. */
  retryBaseSec: number;
}

export const LETS_ENCRYPT_DIRECTORY = 'https://acme-v02.api.letsencrypt.org/directory';

/** How replicas sharing one database hand work over (docs/replicas.md). */
export interface ReplicasConfig {
  /** A plan whose runner renewed its lease longer ago than this is taken over by another replica. */
  planLeaseMs: number;
  /** How often a replica that is not the leader tries the leader lock again (and the leader checks its lock connection). */
  leaderRetryMs: number;
}

/** When a TLS certificate check of a service port warns and fails, in days before expiry. */
export interface CertExpiryDays {
  /** Under this many days to expiry (or expired) the check fails: the alert fires. */
  failDays: number;
  /** Under this many days the check warns (shown, no alert). */
  warnDays: number;
}

export interface Config {
  version: string;
  port: number;
  host: string;
  stateDir: string;
  databaseUrl: string | null;
  jwtSecret: string;
  jwtExpiresIn: string;
  secretsKey: Buffer;
  webhookSecret: string | null;
  codehostWebhookSecret: string | null;
  mcpEnabled: boolean;
  mcpAllowedHosts: string[];
  /** Single sign-on through an OpenID provider (docs/sso.md); null when OIDC_ISSUER is unset. */
  oidc: OidcConfig | null;
  /** false: only single sign-on signs users in (POST /api/auth/login and register answer 403). */
  passwordLogin: boolean;
  /** GET /metrics wants `Authorization: Bearer <this>` when set; open otherwise. */
  metricsToken: string | null;
  /**
   * The default of the system setting outgoingAllowList (hosts or CIDRs outgoing requests may
   * reach although they are loopback, link-local or the controller's own; controller/net/outgoing-guard.ts).
   */
  outgoingAllowList: string[];
  manifestsDir: string | null;
  /** GIT_FILE_ROOTS: the folders file:// Git sources may read (absolute, colon-separated); none by default. */
  gitFileRoots: string[];
  manifestsPrune: boolean;
  rateLimitPerMinute: number;
  /** log2 of scrypt's N for new password hashes; below the default only in tests (controller/crypto/password.ts). */
  passwordHashCost: number;
  /** On SIGTERM, how long requests in flight may take to finish before connections are cut. */
  shutdownGraceMs: number;
  /** An image pull whose progress stream stays silent this long is cancelled and fails (controller/deploy/pull-image.ts). */
  pullStallMs: number;
  /** The image of the helper containers that copy a volume for backups, restores and drills (tar and sh): VOLUME_HELPER_IMAGE. */
  volumeHelperImage: string;
  scheduler: SchedulerConfig;
  replicas: ReplicasConfig;
  metricsRetentionDays: number;
  certExpiry: CertExpiryDays;
  acme: AcmeConfig;
  /** The base URL servers reach the controller at (the agent posts there); null: asked per install. */
  publicUrl: string | null;
  /** INGRESS_PROXY_IMAGE: the Caddy 2 image of the proxy on every server that serves an ingress host (docs/ingress.md). */
  ingressProxyImage: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const stateDir = ensureStateDir(env.STEVEDORE_STATE_DIR || './.stevedore');
  const secretsKey = Buffer.from(env.SECRETS_KEY || generatedKey(stateDir, 'secrets.key'), 'base64');
  if (secretsKey.length !== 32) throw new ConfigError('SECRETS_KEY must be 32 bytes, base64-encoded');
  const logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel'];
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL must be one of debug, info, warn, error, silent');
  }
  return {
    version: VERSION,
    port: parseInteger('PORT', env.PORT, 8080, 0, 65535),
    host: env.HOST || '127.0.0.1',
    stateDir,
    databaseUrl: env.DATABASE_URL || null,
    jwtSecret: env.JWT_SECRET || generatedKey(stateDir, 'jwt.secret', 48),
    jwtExpiresIn: env.JWT_EXPIRES_IN || '12h',
    secretsKey,
    webhookSecret: env.WEBHOOK_SECRET || null,
    codehostWebhookSecret: env.CODEHOST_WEBHOOK_SECRET || null,
    mcpEnabled: parseBoolean('MCP_ENABLED', env.MCP_ENABLED, false),
    mcpAllowedHosts: parseList(env.MCP_ALLOWED_HOSTS),
    metricsToken: env.METRICS_TOKEN || null,
    oidc: oidcConfigOf(env),
    passwordLogin: parseBoolean('PASSWORD_LOGIN', env.PASSWORD_LOGIN, true),
    outgoingAllowList: parseAllowList(env.OUTGOING_ALLOW_LIST),
    manifestsDir: env.MANIFESTS_DIR || null,
    gitFileRoots: parseGitFileRoots(env.GIT_FILE_ROOTS),
    manifestsPrune: parseBoolean('MANIFESTS_PRUNE', env.MANIFESTS_PRUNE, false),
    rateLimitPerMinute: parseInteger('RATE_LIMIT_PER_MINUTE', env.RATE_LIMIT_PER_MINUTE, 1200, 0, 10_000_000),
    passwordHashCost: parseInteger('PASSWORD_HASH_COST', env.PASSWORD_HASH_COST, DEFAULT_PASSWORD_HASH_COST, MIN_PASSWORD_HASH_COST, DEFAULT_PASSWORD_HASH_COST),
    shutdownGraceMs: parseInteger('SHUTDOWN_GRACE_SEC', env.SHUTDOWN_GRACE_SEC, 20, 0, 3600) * 1000,
    pullStallMs: parseInteger('PULL_STALL_SEC', env.PULL_STALL_SEC, 60, 1, 3600) * 1000,
    volumeHelperImage: env.VOLUME_HELPER_IMAGE || 'busybox:stable',
    scheduler: {
      healthCheckSec: parseInteger('SCHEDULER_HEALTH_CHECK_SEC', env.SCHEDULER_HEALTH_CHECK_SEC, 60, 1, 86400),
      driftCheckSec: parseInteger('SCHEDULER_DRIFT_CHECK_SEC', env.SCHEDULER_DRIFT_CHECK_SEC, 300, 1, 86400),
      resyncSec: parseInteger('SCHEDULER_RESYNC_SEC', env.SCHEDULER_RESYNC_SEC, 600, 1, 86400),
      imageUpdateCheckSec: parseInteger('SCHEDULER_IMAGE_UPDATE_CHECK_SEC', env.SCHEDULER_IMAGE_UPDATE_CHECK_SEC, 3600, 1, 604800),
      backupSec: parseInteger('SCHEDULER_BACKUP_SEC', env.SCHEDULER_BACKUP_SEC, 30, 1, 3600),
      metricsSec: parseInteger('SCHEDULER_METRICS_SEC', env.SCHEDULER_METRICS_SEC, 60, 1, 86400),
      metricsRetentionSec: parseInteger('SCHEDULER_METRICS_RETENTION_SEC', env.SCHEDULER_METRICS_RETENTION_SEC, 3600, 1, 86400),
      jobsSec: parseInteger('SCHEDULER_JOBS_SEC', env.SCHEDULER_JOBS_SEC, 5, 1, 3600),
      gitPollSec: parseInteger('SCHEDULER_GIT_POLL_SEC', env.SCHEDULER_GIT_POLL_SEC, 5, 1, 3600),
      certificateSec: parseInteger('SCHEDULER_CERTIFICATE_SEC', env.SCHEDULER_CERTIFICATE_SEC, 10, 1, 86400),
    },
    replicas: {
      planLeaseMs: parseInteger('PLAN_LEASE_MS', env.PLAN_LEASE_MS, 7000, 300, 600_000),
      leaderRetryMs: parseInteger('LEADER_RETRY_MS', env.LEADER_RETRY_MS, 5000, 100, 600_000),
    },
    metricsRetentionDays: parseInteger('METRICS_RETENTION_DAYS', env.METRICS_RETENTION_DAYS, 30, 1, 3650),
    certExpiry: parseCertExpiry(env),
    acme: parseAcme(env),
    publicUrl: parsePublicUrl(env.STEVEDORE_PUBLIC_URL),
    ingressProxyImage: parseProxyImage(env.INGRESS_PROXY_IMAGE),
    logLevel,
  };
}

/** CERT_EXPIRY_FAIL_DAYS (7) and CERT_EXPIRY_WARN_DAYS (21): a warning that comes after the failure would never show. */
export function parseCertExpiry(env: NodeJS.ProcessEnv): CertExpiryDays {
  const failDays = parseInteger('CERT_EXPIRY_FAIL_DAYS', env.CERT_EXPIRY_FAIL_DAYS, 7, 0, 3650);
  const warnDays = parseInteger('CERT_EXPIRY_WARN_DAYS', env.CERT_EXPIRY_WARN_DAYS, 21, 0, 3650);
  if (warnDays < failDays) {
    throw new ConfigError(`CERT_EXPIRY_WARN_DAYS (${warnDays}) must be at least CERT_EXPIRY_FAIL_DAYS (${failDays}): a certificate warns before it fails`);
  }
  return { failDays, warnDays };
}

function parseAcme(env: NodeJS.ProcessEnv): AcmeConfig {
  const directoryUrl = env.ACME_DIRECTORY_URL || LETS_ENCRYPT_DIRECTORY;
  if (!/^https?:\/\/[^\s/?#]+/.test(directoryUrl)) throw new ConfigError('ACME_DIRECTORY_URL must be an http(s) URL such as https://acme-v02.api.letsencrypt.org/directory');
  const email = env.ACME_EMAIL || null;
  if (email !== null && !/^[^\s@]+@[^\s@]+$/.test(email)) throw new ConfigError('ACME_EMAIL must be an e-mail address');
  return {
    directoryUrl, email, caCertFile: env.ACME_CA_CERT_FILE || null,
    renewBeforeDays: parseInteger('ACME_RENEW_BEFORE_DAYS', env.ACME_RENEW_BEFORE_DAYS, 30, 1, 36500),
    retryBaseSec: parseInteger('ACME_RETRY_BASE_SEC', env.ACME_RETRY_BASE_SEC, 60, 1, 86400),
  };
}

/** INGRESS_PROXY_IMAGE: an image reference (registry/name:tag or @digest); the official caddy:2 by default. */
function parseProxyImage(value: string | undefined): string {
  if (!value) return 'caddy:2';
  if (!/^[a-z0-9][a-z0-9._\-/:@]{0,254}$/i.test(value)) throw new ConfigError('INGRESS_PROXY_IMAGE must be an image reference such as caddy:2 or registry.example.com/caddy:2');
  return value;
}

/** STEVEDORE_PUBLIC_URL: an http(s) base URL, kept without its trailing slash. */
function parsePublicUrl(value: string | undefined): string | null {
  if (!value) return null;
  if (!/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(value)) throw new ConfigError('STEVEDORE_PUBLIC_URL must be an http(s) URL such as https://stevedore.example.com');
  return value.replace(/\/+$/, '');
}

/** GIT_FILE_ROOTS=/srv/git:/opt/repos: absolute paths only (a relative one would depend on the working directory). */
function parseGitFileRoots(raw: string | undefined): string[] {
  const roots = (raw ?? '').split(':').map((r) => r.trim()).filter(Boolean);
  const relative = roots.find((r) => !r.startsWith('/'));
  if (relative !== undefined) throw new ConfigError(`GIT_FILE_ROOTS: '${relative}' is not an absolute path`);
  return roots;
}
