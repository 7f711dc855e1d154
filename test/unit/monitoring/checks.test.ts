import { expect } from 'chai';
import type Docker from 'dockerode';
import { certVerdict } from '../../../controller/monitoring/port-checks.js';
import { parseCertExpiry } from '../../../controller/config/config.js';
import { ConfigError } from '../../../controller/config/parse-env.js';
import { containerCheck, publishedTcpPorts } from '../../../controller/monitoring/service-checks.js';
import { serverConditions } from '../../../controller/monitoring/server-conditions.js';
import { serverCheck } from '../../../controller/monitoring/record-server-checks.js';
import { databaseCheck } from '../../../controller/monitoring/database-checks.js';
import type { DatabaseRow } from '../../../controller/store/repositories/databases.js';
import { getCondition } from '../../../controller/model/conditions.js';
import { crashLoopOf, deploymentConditions } from '../../../reconcilers/deployment/status.js';
import { plan } from '../../../reconcilers/deployment/plan.js';
import { desired, observedOf } from '../reconcilers/deployment/desired-fixture.js';
import type { ServerRow } from '../../../controller/store/repositories/servers.js';
import type { DeploymentRow } from '../../../controller/store/repositories/deployments.js';

const server = { id: 'srv', environmentId: 'env', name: 's1', hostname: '10.0.0.1' } as ServerRow;
const dep = { id: 'dep', environmentId: 'env', containerName: 'web-1' } as DeploymentRow;
const summary = (over: Partial<Docker.ContainerInfo>) => ({ State: 'running', Status: 'Up 3 minutes', Ports: [], ...over }) as Docker.ContainerInfo;

describe('monitoring checks (pure parts)', () => {
  it('judges a certificate by its days to expiry: failed under 7 days or expired, warning under 21 (the defaults)', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const inDays = (n: number) => new Date(now.getTime() + n * 86_400_000 + 3_600_000);
    const days = parseCertExpiry({});
    expect(days).to.deep.equal({ failDays: 7, warnDays: 21 });
    expect(certVerdict(inDays(5), now, days)).to.include({ status: 'failed', daysToExpiry: 5 });
    expect(certVerdict(inDays(5), now, days).error).to.match(/expires in 5 days/);
    expect(certVerdict(inDays(10), now, days)).to.include({ status: 'warning', daysToExpiry: 10 });
    expect(certVerdict(inDays(90), now, days)).to.include({ status: 'ok', error: null });
    expect(certVerdict(new Date('2025-12-01T00:00:00Z'), now, days).error).to.match(/^certificate expired/);
  });

  it('takes the certificate thresholds from CERT_EXPIRY_FAIL_DAYS and CERT_EXPIRY_WARN_DAYS, refusing a warning after the failure', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const inDays = (n: number) => new Date(now.getTime() + n * 86_400_000 + 3_600_000);
    const days = parseCertExpiry({ CERT_EXPIRY_FAIL_DAYS: '3', CERT_EXPIRY_WARN_DAYS: '45' });
    expect(days).to.deep.equal({ failDays: 3, warnDays: 45 });
    expect(certVerdict(inDays(5), now, days)).to.include({ status: 'warning', daysToExpiry: 5 });
    expect(certVerdict(inDays(2), now, days)).to.include({ status: 'failed', daysToExpiry: 2 });
    expect(certVerdict(inDays(30), now, days).status).to.equal('warning');
    expect(certVerdict(inDays(50), now, days).status).to.equal('ok');
    // 0/0: only an expired certificate fails and nothing warns
    const never = parseCertExpiry({ CERT_EXPIRY_FAIL_DAYS: '0', CERT_EXPIRY_WARN_DAYS: '0' });
    expect(certVerdict(inDays(0), now, never).status).to.equal('ok');
    expect(() => parseCertExpiry({ CERT_EXPIRY_FAIL_DAYS: '30' })).to.throw(ConfigError, /CERT_EXPIRY_WARN_DAYS \(21\) must be at least CERT_EXPIRY_FAIL_DAYS \(30\)/);
    expect(() => parseCertExpiry({ CERT_EXPIRY_WARN_DAYS: '-1' })).to.throw(ConfigError, /CERT_EXPIRY_WARN_DAYS must be a whole number/);
    expect(() => parseCertExpiry({ CERT_EXPIRY_FAIL_DAYS: '7.5' })).to.throw(ConfigError, /CERT_EXPIRY_FAIL_DAYS must be a whole number/);
    expect(() => parseCertExpiry({ CERT_EXPIRY_WARN_DAYS: '5000' })).to.throw(ConfigError, /between 0 and 3650/);
  });

  it('checks a container by its state and Docker health', () => {
    expect(containerCheck(server, dep, summary({}), 4)).to.include({ status: 'ok', checkKey: 'container:dep', latencyMs: 4, target: 'container web-1 on s1' });
    expect(containerCheck(server, dep, summary({ Status: 'Up 1 minute (unhealthy)' }), 1).status).to.equal('failed');
    expect(containerCheck(server, dep, summary({ Status: 'Up 1 second (health: starting)' }), 1).status).to.equal('warning');
    expect(containerCheck(server, dep, summary({ State: 'exited', Status: 'Exited (1)' }), 1).error).to.match(/exited/);
    expect(containerCheck(server, dep, undefined, 1)).to.include({ status: 'failed', error: 'the container does not exist' });
  });

  it('lists published TCP ports once each, connecting to 127.0.0.1 for a port on every address', () => {
    const ports = publishedTcpPorts(summary({ Ports: [
      { IP: '0.0.0.0', PrivatePort: 443, PublicPort: 8443, Type: 'tcp' }, { IP: '::', PrivatePort: 443, PublicPort: 8443, Type: 'tcp' },
      { IP: '127.0.0.1', PrivatePort: 80, PublicPort: 8080, Type: 'tcp' }, { IP: '0.0.0.0', PrivatePort: 53, PublicPort: 53, Type: 'udp' },
      { IP: '', PrivatePort: 9000, Type: 'tcp' } as Docker.Port,
    ] }));
    expect(ports).to.deep.equal([{ host: '127.0.0.1', port: 8443 }, { host: '127.0.0.1', port: 8080 }]);
  });

  it('derives server Ready from its check and Degraded from the checks that are down', () => {
    const h = { status: 'healthy' as const, message: 'docker 27', durationMs: 12 };
    expect(serverCheck(server, h)).to.include({ status: 'ok', latencyMs: 12, checkKey: 'server:srv', error: null });
    const ok = serverConditions([], h, []);
    expect(ok.map((c) => `${c.type}=${c.status}/${c.reason}`).sort()).to.deep.equal(['Degraded=False/ChecksPassing', 'Ready=True/Reachable']);
    const bad = serverConditions(ok, { status: 'unhealthy', message: 'refused' }, [{ target: 'tcp web-1 on s1 127.0.0.1:8443' }]);
    expect(getCondition(bad, 'Ready')).to.include({ status: 'False', reason: 'ServerUnreachable', message: 'refused' });
    expect(getCondition(bad, 'Degraded')).to.include({ status: 'True', reason: 'ChecksFailing', message: 'down: tcp web-1 on s1 127.0.0.1:8443' });
  });

  it('turns a database test into a check named by the database and where it is reached', () => {
    const db = { id: 'db1', environmentId: 'env', name: 'orders', serverId: null, containerName: null, host: '10.0.0.5', port: 5432 } as DatabaseRow;
    expect(databaseCheck(db, { ok: true, message: 'accepts', durationMs: 3 })).to.include({
      kind: 'database', checkKey: 'database:db1', target: 'database orders (10.0.0.5:5432)', status: 'ok', latencyMs: 3, error: null,
    });
    const inContainer = { ...db, serverId: 'srv', containerName: 'pg-1', host: null, port: null };
    expect(databaseCheck(inContainer, { ok: false, message: 'exited 2', durationMs: 9 })).to.include({
      target: 'database orders (container pg-1)', status: 'failed', error: 'exited 2', serverId: 'srv',
    });
  });

  it('raises Degraded CrashLooping while a deployed container keeps restarting, and clears it once it stays up', () => {
    const d = desired();
    const now = new Date('2026-01-01T00:10:00Z');
    const looping = { ...observedOf(d), restartCount: 4, startedAt: '2026-01-01T00:09:50Z' };
    expect(crashLoopOf(looping, now)).to.equal('restarted 4 times since it was deployed');
    expect(crashLoopOf({ ...looping, restartCount: 2 }, now)).to.equal(null);
    expect(crashLoopOf({ ...looping, startedAt: '2026-01-01T00:01:00Z' }, now)).to.equal(null);
    expect(crashLoopOf({ ...looping, startedAt: '2026-01-01T00:01:00Z', state: 'restarting' }, now)).to.match(/restarted 4 times/);
    const facts = { generation: 1, failedGeneration: null };
    const out = deploymentConditions([], { kind: 'observed', desired: d, observed: looping, plan: plan(d, looping) }, facts, now);
    expect(getCondition(out, 'Degraded')).to.include({ status: 'True', reason: 'CrashLooping' });
    const calm = { ...looping, startedAt: '2026-01-01T00:01:00Z' };
    const later = deploymentConditions(out, { kind: 'observed', desired: d, observed: calm, plan: plan(d, calm) }, facts, now);
    expect(getCondition(later, 'Degraded')).to.include({ status: 'False', reason: 'AsDesired' });
  });
});
