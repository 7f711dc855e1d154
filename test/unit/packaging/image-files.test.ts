import { expect } from 'chai';
import fs from 'node:fs';
import { parse } from 'yaml';

// The compose example cannot be run here (no compose plugin, no registry outside): it is held to
// the Dockerfile the e2e test builds and runs (test/e2e/image.test.ts).
const root = new URL('../../../', import.meta.url).pathname;
const dockerfile = fs.readFileSync(`${root}Dockerfile`, 'utf8');
const compose = parse(fs.readFileSync(`${root}examples/compose/compose.yaml`, 'utf8'));

describe('the container image files', () => {
  it('the compose example mounts the image\'s state volume, publishes its port and points DATABASE_URL at its PostgreSQL service', () => {
    const volume = JSON.parse(/^VOLUME (\[.*\])$/m.exec(dockerfile)![1])[0];
    const port = /^EXPOSE (\d+)$/m.exec(dockerfile)![1];
    const app = compose.services.stevedore;
    expect(app.volumes.map((v: string) => v.split(':')[1])).to.include(volume);
    expect(app.ports.map((p: string) => p.split(':').at(-1))).to.include(port);
    const url = new URL(app.environment.DATABASE_URL.replace(/\$\{[^}]+\}/g, 'x'));
    expect(compose.services).to.have.property(url.hostname);
    expect(url.pathname.slice(1)).to.equal(compose.services[url.hostname].environment.POSTGRES_DB);
    expect(Object.keys(app.environment)).to.include.members(['SECRETS_KEY', 'JWT_SECRET']);
    expect(app.stop_grace_period).to.equal('60s');
  });

  it('the Dockerfile runs node itself as a non-root user with /health as its health check', () => {
    expect(dockerfile).to.match(/^USER 10001:10001$/m);
    expect(dockerfile).to.match(/^CMD \["node", "bin\/stevedore.js", "serve"\]$/m);
    expect(dockerfile).to.match(/^HEALTHCHECK .*\n\s+CMD .*\/health/m);
  });
});
