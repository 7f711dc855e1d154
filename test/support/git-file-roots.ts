import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where the tests' Git repositories live (test/support/git-repo.ts), and what the tests'
 * controllers list in GIT_FILE_ROOTS (file:// sources are refused outside it): a folder of its
 * own, so a test service's state dir (elsewhere under the temporary folder) is never inside it.
 * A module of its own, so a test that spawns a controller does not load the service to know it.
 */
export const TEST_GIT_ROOT = join(tmpdir(), 'stevedore-test-git');
