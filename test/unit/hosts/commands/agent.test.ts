import { expect } from 'chai';
import { AGENT_DIR, AGENT_UNIT, agentCommand, agentStatus, removeAgent, writeFromStdin } from '../../../../controller/hosts/commands/agent.js';
import { toShellLine } from '../../../../controller/hosts/shell-quote.js';

describe('agent command builders', () => {
  it('write a file from stdin with its mode, atomically, the path an argument and never part of the script', () => {
    expect(toShellLine(writeFromStdin('/opt/stevedore-agent/agent.env', 0o600))).to.equal(
      `sh -c 'umask 077 && mkdir -p "$(dirname "$1")" && cat >"$1.tmp" && chmod "$2" "$1.tmp" && mv -f "$1.tmp" "$1"' sh /opt/stevedore-agent/agent.env 600`);
  });

  it("run the script's subcommands through /bin/sh, so no exec bit is needed", () => {
    expect(agentCommand('start')).to.deep.equal(['/bin/sh', '/opt/stevedore-agent/stevedore-agent', 'start']);
  });

  it('ask for the status, or say installed=no when there is no script', () => {
    expect(toShellLine(agentStatus())).to.equal(
      `sh -c 'if [ -f "$1" ]; then exec /bin/sh "$1" status; else echo installed=no; fi' sh /opt/stevedore-agent/stevedore-agent`);
  });

  it('remove: stop through the script when present, then delete the directory and the unit', () => {
    const argv = removeAgent();
    expect(argv.slice(-2)).to.deep.equal([AGENT_DIR, AGENT_UNIT]);
    expect(argv[2]).to.contain('stop || exit 1').and.contain('rm -rf -- "$1" && rm -f -- "$2"');
  });
});
