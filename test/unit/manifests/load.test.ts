import { expect } from 'chai';
import { loadManifests } from '../../../controller/manifests/load.js';
import { formatError } from '../../../controller/manifests/types.js';
import { KIND_NAMES } from '../../../controller/kinds/index.js';

const env = `apiVersion: stevedore/v1
kind: Environment
metadata: {name: prod}
spec: {}
`;
const load = (files: Record<string, string>) =>
  loadManifests(Object.entries({ 'env.yaml': env, ...files }).map(([path, content]) => ({ path, content })));
const where = (r: ReturnType<typeof load>) => r.errors.map(formatError);

describe('manifest loader', () => {
  it('reads several documents of one file, skipping empty ones, and gives each its file and line', () => {
    const r = load({ 'vars.yml': `apiVersion: stevedore/v1
kind: Var
metadata: {name: A, environment: prod}
spec: {value: "1"}
---
apiVersion: stevedore/v1
kind: Var
metadata: {name: B, environment: prod}
spec: {value: "2"}
---
` });
    expect(r.errors).to.deep.equal([]);
    expect(r.manifests.filter((m) => m.kind === 'Var').map((m) => `${m.file}:${m.line}`)).to.deep.equal(['vars.yml:1', 'vars.yml:6']);
  });

  it('reports every schema error of a folder with file, line, column and schema path', () => {
    const r = load({ 'svc.yaml': `apiVersion: stevedore/v1
kind: Service
metadata: {name: web, environment: prod}
spec:
  image: web
  imageTag: "bad tag"
  deployments:
    - server: s1
      colour: red
`, 'server.yaml': `apiVersion: stevedore/v1
kind: Server
metadata: {name: s1, environment: prod}
spec:
  sshPort: 70000
` });
    expect(where(r)).to.deep.equal([
      'server.yaml:5:3: spec/hostname: is required',
      'server.yaml:5:12: spec/sshPort: must be <= 65535',
      'svc.yaml:6:13: spec/imageTag: must match pattern "^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$"',
      "svc.yaml:9:7: spec/deployments/0/colour: unknown field 'colour'",
    ]);
  });

  it('rejects a plain secret value and names valueFrom as the way', () => {
    const r = load({ 's.yaml': `apiVersion: stevedore/v1
kind: Secret
metadata: {name: TOKEN, environment: prod}
spec:
  value: hunter2
` });
    expect(where(r)).to.include('s.yaml:5:3: spec/value: plain secret values are not allowed in manifests: use valueFrom: {secretRef: NAME} (a Secret of the environment), a SOPS file, or in the watched folder {env: NAME} or {file: PATH}');
    expect(JSON.stringify(r.errors)).not.to.include('hunter2');
  });

  it('rejects labels with the reserved stevedore. prefix', () => {
    const r = load({ 'v.yaml': `apiVersion: stevedore/v1
kind: Var
metadata:
  name: A
  environment: prod
  labels: {stevedore.service: x, team: a}
spec: {value: "1"}
` });
    expect(where(r)).to.deep.equal(["v.yaml:6:12: metadata/labels/stevedore.service: the label prefix 'stevedore.' is reserved for Stevedore"]);
  });

  it('reports YAML syntax errors with their line and still checks the other files', () => {
    const r = load({ 'a.yaml': 'kind: [\n', 'b.yaml': 'apiVersion: stevedore/v1\nkind: Nope\n' });
    expect(where(r)).to.have.length.greaterThan(1);
    expect(r.errors[0].file).to.equal('a.yaml');
    // every kind of the list, in its order (a new kind's descriptor adds itself)
    expect(KIND_NAMES.slice(0, 3)).to.deep.equal(['Environment', 'Registry', 'Server']);
    expect(where(r)).to.include(`b.yaml:2:7: kind: unknown kind 'Nope' (known: ${KIND_NAMES.join(', ')})`);
  });

  it('resolves references by name and reports unknown ones where they are written', () => {
    const r = load({ 'app.yaml': `apiVersion: stevedore/v1
kind: Service
metadata: {name: web, environment: prod}
spec:
  image: web
  imageTag: v1
  dependsOn: [api]
  deployments: [{server: s1}]
  configFiles: [{name: app.conf, targetPath: /etc/app.conf}]
---
apiVersion: stevedore/v1
kind: ConfigFile
metadata: {name: other, environment: staging}
spec: {content: "\${fragment:common}"}
` });
    expect(where(r)).to.deep.equal([
      "app.yaml:5:10: spec/image: unknown ContainerImage 'web' in environment 'prod'",
      "app.yaml:7:15: spec/dependsOn/0: unknown Service 'api' in environment 'prod'",
      "app.yaml:8:26: spec/deployments/0/server: unknown Server 's1' in environment 'prod'",
      "app.yaml:9:24: spec/configFiles/0/name: unknown ConfigFile 'app.conf' in environment 'prod'",
      "app.yaml:13:38: metadata/environment: unknown Environment 'staging'",
    ]);
  });

  it('accepts references to objects that already exist in the store', () => {
    const r = load({ 'img.yaml': `apiVersion: stevedore/v1
kind: ContainerImage
metadata: {name: web, environment: prod}
spec: {imageName: registry.local/web, registry: hub}
` });
    expect(r.errors).to.have.length(1);
    const known = loadManifests([{ path: 'env.yaml', content: env }, { path: 'img.yaml', content: `apiVersion: stevedore/v1
kind: ContainerImage
metadata: {name: web, environment: prod}
spec: {imageName: registry.local/web, registry: hub}
` }], new Set(['Registry/prod/hub']));
    expect(known.errors).to.deep.equal([]);
  });

  it('finds duplicate objects and dependency cycles', () => {
    const svc = (name: string, dep: string) => `apiVersion: stevedore/v1
kind: Service
metadata: {name: ${name}, environment: prod}
spec: {image: img, imageTag: v1, dependsOn: [${dep}]}
---
`;
    const img = 'apiVersion: stevedore/v1\nkind: ContainerImage\nmetadata: {name: img, environment: prod}\nspec: {imageName: r/img}\n';
    const r = load({ 'a.yaml': svc('a', 'b') + svc('b', 'a') + img, 'dup.yaml': img });
    const messages = r.errors.map((e) => `${e.file}:${e.line}: ${e.message}`);
    expect(messages).to.include('dup.yaml:3: ContainerImage \'img\' is already defined in a.yaml:11');
    expect(messages.filter((m) => m.includes('dependency cycle'))).to.have.length(2);
  });
});
