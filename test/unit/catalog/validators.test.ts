import { expect } from 'chai';
import {
  assertAbsolutePath, assertComposeTemplate, assertEnv, assertHealthCheckTest, assertImageName, assertPortSpec,
  assertVolumeSpec, NAME_PATTERN, TAG_PATTERN,
} from '../../../controller/catalog/validators.js';
import { AppError } from '../../../controller/errors/app-error.js';

function fieldOf(fn: () => void): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).to.be.instanceOf(AppError);
    expect((e as AppError).code).to.equal('VALIDATION_ERROR');
    return (e as AppError).field;
  }
  throw new Error('expected a VALIDATION_ERROR');
}

describe('catalog validators', () => {
  it('accepts the port forms Docker accepts', () => {
    for (const p of ['80', '8080:80', '127.0.0.1:8080:80', '127.0.0.1:8080:80/udp', '8000-8001:80-81', '[::1]:8080:80', '53/udp']) {
      expect(() => assertPortSpec(p, 'ports.0'), p).not.to.throw();
    }
  });

  it('rejects ports that are malformed, out of range or smuggle shell syntax, naming the field', () => {
    for (const p of ['', 'abc', '70000:80', '0', '999.1.1.1:80:80', '8000-8002:80-81', '80;rm -rf /', '$(id):80', '80 ', '80/http']) {
      expect(fieldOf(() => assertPortSpec(p, 'ports.2')), p).to.equal('ports.2');
    }
  });

  it('accepts named volumes, absolute and ./relative binds with modes, and anonymous volumes', () => {
    for (const v of ['data:/var/lib/data', '/srv/app:/app:ro', './conf:/etc/app:ro,z', '/cache', 'pg-data:/var/lib/postgresql/data']) {
      expect(() => assertVolumeSpec(v, 'volumes.0'), v).not.to.throw();
    }
  });

  it('rejects volumes that escape a directory, use relative targets or carry shell characters', () => {
    for (const v of ['../etc:/etc', '/srv/../etc:/data', './a/../../b:/x', 'data:relative', 'data:/x:bogus', '/a b:/x', '$(id):/x', 'a:/b:ro:extra', '~/x:/y', 'data:/x/../../etc']) {
      expect(fieldOf(() => assertVolumeSpec(v, 'volumes.1')), v).to.equal('volumes.1');
    }
  });

  it('accepts an absolute compose path and rejects relative, dot-dot, NUL and shell characters', () => {
    expect(() => assertAbsolutePath('/srv/stevedore/api/compose.yml', 'composePath')).not.to.throw();
    for (const p of ['srv/compose.yml', '/srv/../etc/passwd', '/srv/a\u0000b', '/srv/$(id).yml', '/srv/a;b', '/srv/dir/', '/srv/a b.yml']) {
      expect(fieldOf(() => assertAbsolutePath(p, 'composePath')), JSON.stringify(p)).to.equal('composePath');
    }
  });

  it('checks env keys and refuses multi-line values, naming the key', () => {
    expect(() => assertEnv({ API_URL: 'http://${API_HOST}:8080', _X: '' })).not.to.throw();
    expect(fieldOf(() => assertEnv({ 'lower': 'x' }))).to.equal('env.lower');
    expect(fieldOf(() => assertEnv({ 'A-B': 'x' }))).to.equal('env.A-B');
    expect(fieldOf(() => assertEnv({ GOOD: 'a\nb' }))).to.equal('env.GOOD');
  });

  it('requires placeholders in env values to be well formed, allowing $$ as a literal dollar', () => {
    expect(() => assertEnv({ A: '${HOST}:${PORT}', B: 'cost $$5 and $${NOT_A_PLACEHOLDER}', C: 'plain $ sign' })).not.to.throw();
    for (const v of ['${host}', '${UNCLOSED', '${A B}', '${}', '${A:-default}']) {
      expect(fieldOf(() => assertEnv({ X: v })), v).to.equal('env.X');
    }
  });

  it('accepts image names without a tag and refuses tags, digests and bad names', () => {
    for (const n of ['nginx', 'acme/api', 'registry.local:5000/acme/api', 'localhost:5000/a_b/c-d', 'ghcr.io/org/app.web']) {
      expect(() => assertImageName(n), n).not.to.throw();
    }
    for (const n of ['acme/api:1.0', 'acme/api@sha256:abc', 'Acme/API', 'UPPER/case', 'bad_host.io:x/a', 'acme//api', 'acme/api;id', '', '-acme']) {
      expect(fieldOf(() => assertImageName(n)), n).to.equal('imageName');
    }
  });

  it('requires a healthcheck test to start with CMD, CMD-SHELL or NONE', () => {
    expect(() => assertHealthCheckTest(['CMD', 'curl', '-f', 'http://localhost/'])).not.to.throw();
    expect(fieldOf(() => assertHealthCheckTest(['curl', 'x']))).to.equal('healthCheck.test.0');
    expect(fieldOf(() => assertHealthCheckTest(['CMD', 'a\u0000']))).to.equal('healthCheck.test.1');
  });

  it('requires a compose template to be a YAML mapping', () => {
    expect(() => assertComposeTemplate('services:\n  api:\n    image: ${IMAGE}\n')).not.to.throw();
    expect(fieldOf(() => assertComposeTemplate('- a\n- b\n'))).to.equal('composeTemplate');
    expect(fieldOf(() => assertComposeTemplate('a: [1, 2\n'))).to.equal('composeTemplate');
  });

  it('follows Docker\'s name rule (two characters at least) and the tag rule', () => {
    const name = new RegExp(NAME_PATTERN);
    const tag = new RegExp(TAG_PATTERN);
    expect(['ab', 'api-1', 'web_2.blue'].every((n) => name.test(n))).to.equal(true);
    expect(['a', '-ab', '.ab', 'a b', 'a;b', 'a/b', 'x'.repeat(129)].some((n) => name.test(n))).to.equal(false);
    expect(['1.2.3', 'latest', '_x', 'v1-rc.2'].every((t) => tag.test(t))).to.equal(true);
    expect(['-x', '.x', 'a:b', 'a b', 'x'.repeat(129), ''].some((t) => tag.test(t))).to.equal(false);
  });
});
