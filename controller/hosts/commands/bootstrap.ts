// Commands of a server bootstrap (detect the distribution, install and start Docker from the
// distribution's own packages) as argv. Nothing here runs anything; controller/servers/bootstrap.ts does.
import { or } from './combine.js';

export type PackageManager = 'apt' | 'dnf' | 'yum' | 'apk' | 'zypper' | 'pacman';
export type InitSystem = 'systemd' | 'openrc' | 'sysv';

export const readOsRelease = (): string[] => ['cat', '/etc/os-release'];
/** Exit 0 and the server version when a Docker daemon answers. */
export const dockerServerVersion = (): string[] => ['docker', 'version', '--format', '{{.Server.Version}}'];
/** Exit 0 when the command exists on the PATH. */
export const hasCommand = (name: string): string[] => ['sh', '-c', 'command -v "$1"', 'sh', name];
export const userId = (): string[] => ['id', '-u'];
/** Which init system runs, by the marks each leaves: systemd's runtime dir, OpenRC's rc-service. */
export const detectInit = (): string[] => ['sh', '-c',
  'if [ -d /run/systemd/system ]; then echo systemd; elif command -v rc-service >/dev/null 2>&1; then echo openrc; else echo sysv; fi'];

/** Prefixes a command with `sudo -n` when the login is not root (never asks for a password). */
export const asRoot = (root: boolean, argv: string[]): string[] => (root ? argv : ['sudo', '-n', ...argv]);

/**
 * The distribution's Docker package and how to install it, non-interactively. Each family's own
 * repositories (docker.io, moby-engine, docker): no third-party repository is added.
 */
export function installDocker(pm: PackageManager): string[][] {
  switch (pm) {
    case 'apt': return [
      ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'update', '-q'],
      ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', '-q', 'docker.io'],
    ];
    case 'dnf': return [['dnf', 'install', '-y', 'moby-engine']];
    case 'yum': return [['yum', 'install', '-y', 'docker']];
    case 'apk': return [['apk', 'add', '--no-cache', 'docker']];
    case 'zypper': return [['zypper', '--non-interactive', 'install', 'docker']];
    case 'pacman': return [['pacman', '-S', '--noconfirm', '--needed', 'docker']];
  }
}

/** Starts Docker now and at every boot, the way the init system does it. */
export function startDocker(init: InitSystem): string[][] {
  switch (init) {
    case 'systemd': return [['systemctl', 'enable', '--now', 'docker']];
    case 'openrc': return [['rc-update', 'add', 'docker', 'default'], ['rc-service', 'docker', 'start']];
    // sysv: enabling at boot is the package's job (update-rc.d in its postinst); start it now
    case 'sysv': return [['service', 'docker', 'start']];
  }
}

/** Swap: whether the path is free, then a swap file of sizeMb made and switched on, and kept in /etc/fstab. */
export function addSwapFile(path: string, sizeMb: number): string[][] {
  const size = String(sizeMb);
  return [
    ['sh', '-c', 'test ! -e "$1"', 'sh', path],
    or(['fallocate', '-l', `${size}M`, path], ['dd', 'if=/dev/zero', `of=${path}`, 'bs=1M', `count=${size}`, 'status=none']),
    ['chmod', '600', path],
    ['mkswap', path],
    ['swapon', path],
    // keep it across reboots, once
    or(['grep', '-qF', `${path} none swap`, '/etc/fstab'], ['sh', '-c', 'printf "%s none swap sw 0 0\\n" "$1" >> /etc/fstab', 'sh', path]),
  ];
}

/** What `swapon --show` reports, in bytes, without headers. */
export const showSwap = (): string[] => ['swapon', '--show', '--bytes', '--noheadings', '--raw', '--output', 'NAME,TYPE,SIZE,USED'];

