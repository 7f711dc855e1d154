// `npm start` a second time on the same port: one line and exit 1, before the embedded
// PostgreSQL starts or a migration runs (issue 28: it used to do both, then die with a stack).
import { expect } from 'chai';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CliHome } from '../support/cli-run.js';

describe('stevedore serve on a port already in use', () => {
  let blocker: net.Server;
  let port: number;
  let stateDir: string;
  let home: CliHome;
  before(async () => {
    blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    port = (blocker.address() as net.AddressInfo).port;
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-serve-busy-'));
    home = new CliHome();
  });
  after(async () => {
    home.remove();
    fs.rmSync(stateDir, { recursive: true, force: true });
    await new Promise((resolve) => blocker.close(resolve));
  });

  it('exits 1 with one line naming the port, without starting PostgreSQL', async function () {
    this.timeout(30_000);
    const env: Record<string, string> = { PORT: String(port), HOST: '127.0.0.1', STEVEDORE_STATE_DIR: stateDir, DATABASE_URL: '' };
    const r = await home.run(['serve'], { env });
    expect(r.code, r.stderr).to.equal(1);
    expect(r.stderr).to.equal(`stevedore: cannot listen on 127.0.0.1:${port}: the port is already in use (another stevedore serve?); set PORT to a free port\n`);
    expect(fs.existsSync(path.join(stateDir, 'postgres')), 'no embedded PostgreSQL data directory').to.equal(false);
  });
});
