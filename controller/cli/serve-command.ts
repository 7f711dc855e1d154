import { loadConfig } from '../config/config.js';
import { createLogger } from '../logger.js';
import { startService, type HttpApp } from '../serve.js';

/** `stevedore serve`: runs until SIGINT/SIGTERM, then stops the API and the embedded database cleanly. */
export async function serveCommand(createApp: HttpApp): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const running = await startService(createApp, config, logger);
  const shutdown = (signal: string) => {
    logger.info('shutting down', { signal });
    running.stop().then(() => process.exit(0), (e) => {
      logger.error('shutdown failed', { error: String(e) });
      process.exit(1);
    });
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}
