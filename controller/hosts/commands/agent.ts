// The monitoring agent on a server, as argv: where it lives, how its files go up, and the script's
// own lifecycle subcommands. Nothing here runs anything; controller/monitoring/agent/ does.

/** Everything the agent keeps on a server lives here (script, agent.env, pid and log in loop mode). */
export const AGENT_DIR = '/opt/stevedore-agent';
export const AGENT_SCRIPT = `${AGENT_DIR}/stevedore-agent`;
export const AGENT_ENV = `${AGENT_DIR}/agent.env`;
/** Written by the script's `start` when systemd runs; removed by its `stop`. */
export const AGENT_UNIT = '/etc/systemd/system/stevedore-agent.service';

/** Writes stdin to path atomically (temp file, mode, rename) with a private umask, creating the directory. */
export const writeFromStdin = (path: string, mode: number): string[] => ['sh', '-c',
  'umask 077 && mkdir -p "$(dirname "$1")" && cat >"$1.tmp" && chmod "$2" "$1.tmp" && mv -f "$1.tmp" "$1"',
  'sh', path, mode.toString(8)];

/** Runs one of the script's subcommands (start, stop, status) through /bin/sh: no exec bit needed. */
export const agentCommand = (verb: 'start' | 'stop' | 'status'): string[] => ['/bin/sh', AGENT_SCRIPT, verb];

/** The script's status, or `installed=no` when there is no script (key=value lines either way). */
export const agentStatus = (): string[] => ['sh', '-c',
  'if [ -f "$1" ]; then exec /bin/sh "$1" status; else echo installed=no; fi', 'sh', AGENT_SCRIPT];

/** Stops the agent when a script is there, then removes every file it had: nothing is left behind. */
export const removeAgent = (): string[] => ['sh', '-c',
  'if [ -f "$1/stevedore-agent" ]; then /bin/sh "$1/stevedore-agent" stop || exit 1; fi; rm -rf -- "$1" && rm -f -- "$2"',
  'sh', AGENT_DIR, AGENT_UNIT];
