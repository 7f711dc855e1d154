import { expect } from 'chai';
import { createLogger } from '../../controller/logger.js';

describe('logger (pino)', () => {
  const capture = (level: 'debug' | 'info' | 'warn' = 'debug') => {
    const lines: string[] = [];
    return { lines, log: createLogger(level, (l) => lines.push(l)) };
  };

  it('writes one JSON line with level name, ISO time, msg and the fields', () => {
    const { lines, log } = capture();
    log.info('stevedore listening', { url: 'http://127.0.0.1:1', count: 3 });
    expect(lines).to.have.length(1);
    expect(lines[0].endsWith('\n')).to.equal(true);
    const line = JSON.parse(lines[0]);
    expect(line).to.include({ level: 'info', msg: 'stevedore listening', url: 'http://127.0.0.1:1', count: 3 });
    expect(new Date(line.time).toISOString()).to.equal(line.time);
    expect(line).to.not.have.any.keys('pid', 'hostname');
  });

  it('drops lines below its level', () => {
    const { lines, log } = capture('warn');
    log.info('quiet');
    log.debug('quieter');
    log.error('loud', { serverId: 's1' });
    expect(lines.map((l) => JSON.parse(l).level)).to.deep.equal(['error']);
  });

  it('never writes a secret-named field, at the top level or one object down', () => {
    const { lines, log } = capture();
    log.warn('refused', {
      password: 'pw-4711', token: 'tok-4711', authorization: 'Bearer b-4711', value: 'v-4711', privateKey: 'k-4711',
      smtp: { host: 'mail', password: 'smtp-4711' }, webhookSecret: 'wh-4711',
    });
    expect(lines[0]).to.not.match(/4711/);
    const line = JSON.parse(lines[0]);
    expect(line).to.include({ password: '[REDACTED]', token: '[REDACTED]', value: '[REDACTED]' });
    expect(line.smtp).to.deep.equal({ host: 'mail', password: '[REDACTED]' });
  });
});
