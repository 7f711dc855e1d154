// README's Getting started, run as written against the fleet this process has (FLEET_ID): its
// shell blocks in order in one bash with -e and pipefail (test/support/readme-script.ts), the
// first block's values (written for fleet 6) replaced with this fleet's and two free ports.
// Where the test stands in for the reader, precisely:
// - `npm install` prints that it is stood in for: the suite installed node_modules (npm test runs
//   `npm ci` when they are missing), and an install here would rewrite the shared ones;
// - `npm start` runs for real (`npm start`, the package script), in the background, as the
//   README's "a terminal of its own"; the script goes on once /health answers on $PORT. The first
//   one, given no STEVEDORE_STATE_DIR, gets a fresh temporary one instead of ./.stevedore (a
//   developer's own stays untouched); the second names its own (.stevedore-gitops);
// - the shell starts without DATABASE_URL, STEVEDORE_*, OUTGOING_ALLOW_LIST, MANIFESTS_DIR, PORT
//   and HOST (as on a fresh machine), with XDG_CONFIG_HOME in a temporary folder (the CLI's
//   contexts).
import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadFleet } from '../fleet/fleet.js';
import { gettingStartedScript } from '../support/readme-script.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

const PREAMBLE = String.raw`set -eEo pipefail
trap 'echo "getting-started: exit $? at: $BASH_COMMAND" >&2' ERR
__started=()
npm() {
  case "$1" in
    install) echo "npm install: stood in for (the test suite installed node_modules)" ;;
    start)
      local log="$SCRATCH/npm-start-$PORT.log"
      if [ -z "$STEVEDORE_STATE_DIR" ]; then local STEVEDORE_STATE_DIR="$SCRATCH/state-$PORT"; export STEVEDORE_STATE_DIR; fi
      echo "npm start: in the background (log $log), state in $STEVEDORE_STATE_DIR"
      setsid npm start >"$log" 2>&1 </dev/null &
      echo $! >>"$SCRATCH/pids"
      local pid=$!
      until curl -s -o /dev/null "http://127.0.0.1:$PORT/health"; do
        kill -0 "$pid" 2>/dev/null || { echo "npm start ended:"; cat "$log"; return 1; }
        sleep 0.2
      done ;;
    *) npm-real "$@" ;;
  esac
}
npm-real() { command npm "$@"; }
`;

describe('README Getting started, run as written', function () {
  this.timeout(900_000);
  const checkout = process.cwd();
  const fleet = loadFleet();
  let scratch: string;
  const leftovers = ['my-manifests', '.stevedore-gitops'].map((p) => path.join(checkout, p));

  before(() => {
    for (const p of leftovers) if (fs.existsSync(p)) throw new Error(`${p} is there already: the README creates it (remove it first)`);
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-getting-started-'));
    // as on a user's machine, the OS user postgres may enter the state dirs (else their data goes
    // to /var/lib/stevedore/embedded-postgres/, as test/e2e/embedded-start.test.ts checks)
    fs.chmodSync(scratch, 0o711);
  });

  after(async function () {
    this.timeout(120_000);
    // the controllers first (each in a session of its own: npm and its node child), then what they left
    const pids = fs.existsSync(path.join(scratch, 'pids')) ? fs.readFileSync(path.join(scratch, 'pids'), 'utf8').split('\n').filter(Boolean).map(Number) : [];
    for (const pid of pids) { try { process.kill(-pid, 'SIGTERM'); } catch { /* ended */ } }
    for (const pid of pids) {
      for (let i = 0; i < 600; i++) {
        try { process.kill(-pid, 0); } catch { break; }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    for (const s of fleet.servers.slice(0, 2)) {
      spawnSync('ssh', ['-i', s.privateKeyPath, '-o', `UserKnownHostsFile=${fleet.root}/known_hosts`, '-o', 'BatchMode=yes', `root@${s.host}`,
        'docker rm -f web api; rm -rf /opt/stevedore/deployments/web /opt/stevedore/deployments/api /etc/demo'], { stdio: 'ignore' });
    }
    // a state dir's database kept outside it (its `postgres` a link) goes with it
    const stateDirs = [path.join(checkout, '.stevedore-gitops'), ...fs.readdirSync(scratch).filter((f) => f.startsWith('state-')).map((f) => path.join(scratch, f))];
    for (const dir of stateDirs) {
      const link = path.join(dir, 'postgres');
      if (fs.lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) fs.rmSync(fs.readlinkSync(link), { recursive: true, force: true });
    }
    for (const p of leftovers) fs.rmSync(p, { recursive: true, force: true });
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('every command succeeds, and the ones shown failing exit as they say', async () => {
    const [port, gitopsPort] = [await freePort(), await freePort()];
    const [s1, s2] = fleet.servers;
    const { script } = gettingStartedScript(fs.readFileSync('README.md', 'utf8'), [
      ['10.250.6.11', s1.host], ['10.250.6.12', s2.host], ['10.250.6.1:5006', fleet.registry.address],
      ['/tmp/stevedore-fleet-6/keys/id_ed25519', s1.privateKeyPath], ['/tmp/stevedore-fleet-6/known_hosts', `${fleet.root}/known_hosts`],
      ['PORT=8080 GITOPS_PORT=8081', `PORT=${port} GITOPS_PORT=${gitopsPort}`],
    ], PREAMBLE);
    fs.writeFileSync(path.join(scratch, 'getting-started.sh'), script);
    const env: NodeJS.ProcessEnv = { ...process.env, SCRATCH: scratch, XDG_CONFIG_HOME: path.join(scratch, 'config') };
    for (const k of Object.keys(env)) if (/^(DATABASE_URL|STEVEDORE_.*|OUTGOING_ALLOW_LIST|MANIFESTS_DIR|MANIFESTS_PRUNE|PORT|HOST|METRICS_TOKEN|WEBHOOK_SECRET)$/.test(k)) delete env[k];
    const out: string[] = [];
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn('bash', ['--noprofile', '--norc', path.join(scratch, 'getting-started.sh')], { cwd: checkout, env, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.on('data', (c: Buffer) => out.push(c.toString()));
      child.stderr.on('data', (c: Buffer) => out.push(c.toString()));
      child.once('close', resolve);
    });
    const logs = fs.readdirSync(scratch).filter((f) => f.startsWith('npm-start-'))
      .map((f) => `--- ${f} (last lines)\n${fs.readFileSync(path.join(scratch, f), 'utf8').split('\n').slice(-40).join('\n')}`);
    expect(code, `${out.join('').split('\n').slice(-120).join('\n')}\n${logs.join('\n')}`).to.equal(0);
  });
});
