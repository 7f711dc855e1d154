import { expect } from 'chai';
import { registryHostOf } from '../../../controller/deploy/registry-auth.js';

describe('registryHostOf', () => {
  it('takes the registry host (with port) from a full image name', () => {
    expect(registryHostOf('10.250.0.1:5100/stevedore-test/web')).to.equal('10.250.0.1:5100');
    expect(registryHostOf('registry.example.com/team/api')).to.equal('registry.example.com');
    expect(registryHostOf('localhost/web')).to.equal('localhost');
  });

  it('answers null for Docker Hub names, which carry no registry host', () => {
    expect(registryHostOf('nginx')).to.equal(null);
    expect(registryHostOf('team/web')).to.equal(null);
  });
});
