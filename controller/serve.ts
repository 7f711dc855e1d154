import http from 'node:http';
import { loadConfig, type Config } from './config/config.js';
import { createLogger, type Logger } from './logger.js';
import { createKnex, type Db } from './store/knex.js';
import { migrateLatest } from './store/migrator.js';
import { SecretBox } from './crypto/secret-box.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './store/embedded-postgres.js';
import { createServices } from './create-services.js';
import type { Services } from './services.js';
import { workersWith } from './workers/index.js';
import type { Reconcilers } from './model/reconcilers.js';
import { compileValidators } from './manifests/validate.js';
import { assertPortFree, listenError } from './port-free.js';

/**
 * What answers HTTP over the services: the API's Koa app (api/app.ts createApp). The caller hands
 * it in (bin/, tests), so the controller runs the API without importing api/.
 */
export type HttpApp = (services: Services) => {
  callback(): http.RequestListener;
  /** WebSocket routes: the server's upgrades, and their end at shutdown. */
  websockets?: { upgrade(req: http.IncomingMessage, socket: import('node:stream').Duplex, head: Buffer): void; closeAll(): void };
};

/** How long one part of the shutdown may take before the next one goes ahead anyway. */
const STOP_STEP_MS = 10_000;
const within = (p: Promise<unknown>, ms: number) => Promise.race([p, new Promise<void>((r) => setTimeout(r, ms).unref())]);

export interface RunningService {
  services: Services;
  server: http.Server;
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts the whole service: database (embedded when DATABASE_URL is unset), migrations, API.
 * Background workers start from controller/workers/; those only the leader replica runs start
 * when this replica wins the leader lock (controller/queue/leadership.ts). `reconcilers`
 * (reconcilers/wiring.ts RECONCILERS) is handed in like `createApp`: controller/ imports neither.
 */
export async function startService(
  createApp: HttpApp, reconcilers: Reconcilers, config: Config = loadConfig(), logger: Logger = createLogger(config.logLevel),
): Promise<RunningService> {
  await assertPortFree(config.port, config.host);
  let embedded: EmbeddedDatabase | null = null;
  let url = config.databaseUrl;
  if (!url) {
    logger.info('DATABASE_URL is unset: starting embedded PostgreSQL', { stateDir: config.stateDir });
    embedded = await startEmbeddedPostgres(config.stateDir, (m) => logger.warn('embedded postgres', { output: m }));
    url = embedded.url;
  }
  const db: Db = createKnex(url);
  try {
    const applied = await migrateLatest(db, url, { secretBox: new SecretBox(config.secretsKey) });
    if (applied.length) logger.info('migrations applied', { count: applied.length });
  } catch (e) {
    await db.destroy();
    await embedded?.stop();
    throw e;
  }
  const services = createServices(config, db, logger, url, reconcilers);
  await services.events.start();
  await services.invalidation.start();
  const stopWorkers: Array<() => Promise<void>> = [];
  for (const w of workersWith(reconcilers.workers)) {
    const stop = await w.start(services);
    if (stop) stopWorkers.unshift(stop);
  }
  // after every worker registered its leader-only part: a lone replica leads before it serves
  await services.leadership.start();
  compileValidators(); // before it listens: the one stall of a manifest apply that cannot be sliced
  const app = createApp(services);
  const server = http.createServer(app.callback());
  if (app.websockets) server.on('upgrade', app.websockets.upgrade);
  server.keepAliveTimeout = 65_000;
  const inFlight = trackResponses(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(listenError(e, config.port, config.host)));
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as { port: number };
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info('stevedore listening', { url: base, version: config.version });
  // a fresh install: say where to go first (the sign-in page offers to create the first admin)
  if ((await services.users.count().catch(() => 1)) === 0) logger.info(`no user yet: open ${base}/ to create the first admin`, { url: base });

  let stopping: Promise<void> | null = null;
  return {
    services,
    server,
    url: base,
    stop() {
      stopping ??= (async () => {
        // No new connections (idle keep-alive ones close now); requests in flight get their
        // answer, up to the grace; event streams are cut (clients resume with Last-Event-ID).
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await drain(inFlight, config.shutdownGraceMs);
        server.closeAllConnections();
        app.websockets?.closeAll();
        await closed;
        // leader work stops first and the leader lock goes with its session: another replica takes over
        await within(services.leadership.stop(), STOP_STEP_MS);
        for (const stopWorker of stopWorkers) await within(stopWorker().catch(() => {}), STOP_STEP_MS);
        await within(services.scheduler.stop(), STOP_STEP_MS);
        // reconciles still running may wait on a server: give them a moment before the
        // connections they wait on are closed, never forever
        await within(services.queue.stop(), STOP_STEP_MS);
        await services.hosts.close();
        await within(services.events.stop(), STOP_STEP_MS);
        await within(services.invalidation.stop(), STOP_STEP_MS);
        services.smtp.close();
        await services.locks.close();
        await db.destroy();
        await embedded?.stop();
      })();
      return stopping;
    },
  };
}

/** The responses not finished yet, kept up to date as requests come and go. */
function trackResponses(server: http.Server): Set<http.ServerResponse> {
  const open = new Set<http.ServerResponse>();
  server.on('request', (_req, res: http.ServerResponse) => {
    open.add(res);
    res.once('close', () => open.delete(res));
  });
  return open;
}

/** Waits until every ordinary request has its answer (event streams never end by themselves). */
async function drain(open: Set<http.ServerResponse>, graceMs: number): Promise<void> {
  const deadline = Date.now() + graceMs;
  const busy = () => [...open].some((res) => !res.writableEnded && !String(res.getHeader('content-type') ?? '').startsWith('text/event-stream'));
  while (busy() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}
