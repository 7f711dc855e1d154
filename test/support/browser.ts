// Debian's Chromium (installed by test/fleet/install.sh), headless, driven by playwright-core: no
// browser download. Generic on purpose: dashboard tests use it, and so can any test that needs a
// real browser engine (parsing a Mermaid export, for one).
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH ?? CANDIDATES.find((p) => existsSync(p));
  if (!path) throw new Error('Chromium is not installed: run test/fleet/install.sh (Debian package chromium)');
  return path;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // as root (npm test runs as root) Chromium's sandbox cannot start; /dev/shm is small in containers
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}
