import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../controller/config/config.js';
import { createLogger } from '../../controller/logger.js';
import { startService, type RunningService } from '../../controller/serve.js';
import { createApp } from '../../api/app.js';
import { RECONCILERS } from '../../reconcilers/wiring.js';
import { createTestDatabase } from './test-database.js';
import { TEST_ALLOW_LIST } from './outgoing-allow.js';
import { TEST_GIT_ROOT } from './git-file-roots.js';
import { HttpClient } from './http-client.js';

export interface TestService extends RunningService {
  /** Unauthenticated client. */
  http: HttpClient;
  /** Every log line the service wrote (tests grep it for leaked secrets). */
  logs: string[];
  stateDir: string;
}

/**
 * Starts the real service (real HTTP, real PostgreSQL in a fresh database) on a free port.
 * `env` overrides configuration variables, as the operator would set them.
 */
export async function startTestService(env: Record<string, string> = {}): Promise<TestService> {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-test-'));
  const databaseUrl = await createTestDatabase();
  const config = loadConfig({
    STEVEDORE_STATE_DIR: stateDir,
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'debug',
    // the lowest scrypt cost: the hashes of a service's first users are most of its start on a loaded machine
    PASSWORD_HASH_COST: '10',
    // the tests' receivers (webhooks, chat, s3rver, registries) listen on loopback, and the fleets'
    // registries on this host's bridge address (10.250.<id>.1, an address of the controller's own):
    // allowed as an operator would allow a local relay; the outgoing guard's own tests set it empty
    OUTGOING_ALLOW_LIST: TEST_ALLOW_LIST,
    // file:// Git sources are refused outside GIT_FILE_ROOTS: the tests' repositories are made under this one
    GIT_FILE_ROOTS: TEST_GIT_ROOT,
    ...env,
  });
  const logs: string[] = [];
  const logger = createLogger(config.logLevel, (line) => {
    logs.push(line);
    if (process.env.TEST_LOGS) process.stderr.write(line);
  });
  const running = await startService(createApp, RECONCILERS, config, logger);
  const stop = running.stop;
  return {
    ...running,
    http: new HttpClient(running.url),
    logs,
    stateDir,
    async stop() {
      await stop();
      fs.rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
