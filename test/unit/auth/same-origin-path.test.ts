import { expect } from 'chai';
import { sameOriginPath } from '../../../controller/auth/same-origin-path.js';

describe('where a sign-in may return to (sameOriginPath)', () => {
  const origin = 'https://deploy.example.test';

  it('keeps a path of a dashboard page, with its query, in the form the browser resolves', () => {
    expect(sameOriginPath('/', origin)).to.equal('/');
    expect(sameOriginPath('/environments/e1?tab=servers', origin)).to.equal('/environments/e1?tab=servers');
    expect(sameOriginPath('/a/./b/../c', origin)).to.equal('/a/c');
    expect(sameOriginPath('/x#frag', origin)).to.equal('/x');
    expect(sameOriginPath('/caf%C3%A9/%E2%82%AC', origin)).to.equal('/caf%C3%A9/%E2%82%AC');
  });

  it('refuses anything a browser may take to another site', () => {
    for (const next of [
      '/\\evil.example/x', '\\\\evil.example', '/\t/evil.example/x', '/\r\n/evil.example', '/\u0000x', '/\u0085x',
      '//evil.example/x', '///evil.example', 'https://evil.example/x', 'http:evil.example', 'javascript:alert(1)', 'evil.example',
      '', ' /x', '/%5Cevil.example', '/%09/evil.example', '/%0d%0a', '/%7f',
    ]) expect(sameOriginPath(next, origin), JSON.stringify(next)).to.equal(null);
  });

  it('refuses the API\'s own paths, which may redirect and carry the fragment with them', () => {
    for (const next of ['/api/users', '/API/users', '/api', '/mcp', '/health', '/x/../api/auth/oidc/login', '/%2e%2e/api/users']) {
      expect(sameOriginPath(next, origin), next).to.equal(null);
    }
    expect(sameOriginPath('/apis', origin)).to.equal('/apis');
  });
});
