import { expect } from 'chai';
import { parseProcesses, PS_ARGV } from '../../../controller/servers/processes.js';

describe('process snapshot parsing', () => {
  it('asks ps for fixed headerless columns with the command line last', () => {
    expect(PS_ARGV.join(' ')).to.equal('ps -eww -o pid=,ppid=,user:32=,pcpu=,pmem=,rss=,etimes=,stat=,args=');
  });

  it('parses each row, keeping spaces inside the command line, and skips what does not parse', () => {
    const out = '    1     0 root      0.1  0.5 12000  3600 Ss   /sbin/init splash\n'
      + '  321     1 www-data 12.5  1.0  2048    60 R+   nginx: worker process  \n\ngarbage\n';
    expect(parseProcesses(out)).to.deep.equal([
      { pid: 1, ppid: 0, user: 'root', cpuPercent: 0.1, memPercent: 0.5, rssKb: 12000, elapsedSec: 3600, state: 'Ss', command: '/sbin/init splash' },
      { pid: 321, ppid: 1, user: 'www-data', cpuPercent: 12.5, memPercent: 1, rssKb: 2048, elapsedSec: 60, state: 'R+', command: 'nginx: worker process' },
    ]);
  });
});
