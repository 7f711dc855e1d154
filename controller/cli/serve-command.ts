import { loadConfig } from '../config/config.js';
import { createLogger } from '../logger.js';
import { startService, type HttpApp } from '../serve.js';
import type { Reconcilers } from '../model/reconcilers.js';

/**
 * `stevedore serve`: runs until SIGINT/SIGTERM, then drains (no new connections, requests in
 * flight answered, plans to a step boundary) and stops the API and the embedded database.
 * A second signal stops at once. The process exits only on purpose: a promise rejected that
 * nobody handled is a bug to log loudly, never a reason to take the API down.
 */
export async function serveCommand(createApp: HttpApp, reconcilers: Reconcilers): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  process.on('unhandledRejection', (reason) => {
    logger.error('unhandled rejection', { error: reason instanceof Error ? reason.stack : String(reason) });
  });
  const running = await startService(createApp, reconcilers, config, logger);
  let signals = 0;
  const shutdown = (signal: string) => {
    if (signals++ > 0) {
      logger.warn('second signal: exiting without waiting', { signal });
      process.exit(1);
    }
    logger.info('shutting down: draining requests and plans', { signal });
    running.stop().then(() => {
      logger.info('stopped');
      process.exit(0);
    }, (e) => {
      logger.error('shutdown failed', { error: String(e) });
      process.exit(1);
    });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}
