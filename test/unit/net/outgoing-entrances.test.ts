import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

// Every connection the controller makes to an address someone gave it goes through
// controller/net/outgoing-guard.ts (guard.fetch, guard.connect, guard.lookup/agents). This walks
// the sources for the primitives that open a connection by themselves; each file that may use one
// says why it is not such an entrance. A new caller fails here until it uses the guard or is listed.
const PRIMITIVES = [/(?<![.\w])fetch\(/, /\bnet\.connect\(/, /\btls\.connect\(/, /\bhttps?\.request\(/, /\bhttps?\.get\(/, /\bcreateConnection\(/, /\bnodemailer\.createTransport\(/, /\bnew (S3Client|Client)\(/];
const ALLOWED: Record<string, string> = {
  'controller/net/outgoing-guard.ts': 'the guard itself',
  'controller/cli/api-client.ts': 'the CLI, a user\'s own client of the API it is pointed at',
  'controller/hosts/ssh-connect.ts': 'SSH to a registered server: servers are private by design (register-host needs an admin)',
  'controller/hosts/scan-host-key.ts': 'the same SSH connection, for its host key only',
  'controller/hosts/tcp-connect.ts': 'a socket-mode server is this machine: its port checks are of its own containers',
  'controller/monitoring/port-checks.ts': 'TLS over a channel the server opened (the connection is the server\'s, not the controller\'s)',
  'controller/admin/smtp.ts': 'nodemailer with getSocket: guard.connect',
  'controller/databases/storage/s3-store.ts': 'the S3 client with guard.agents() and a guarded check of the endpoint',
};

describe('outgoing entrances', () => {
  it('open connections only through the guard, or say why an address is not user-given', () => {
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
        const rel = `${dir}/${e.name}`;
        if (e.isDirectory()) walk(rel);
        else if (rel.endsWith('.ts') && !ALLOWED[rel]) {
          const text = fs.readFileSync(path.join(root, rel), 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '');
          for (const p of PRIMITIVES) if (p.test(text)) offenders.push(`${rel}: ${p.source}`);
        }
      }
    };
    for (const dir of ['controller', 'reconcilers', 'api']) walk(dir);
    expect(offenders).to.deep.equal([]);
  });
});
