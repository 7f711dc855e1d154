import type { TypeCommand } from './default-types.js';

export interface ResolvedCommand {
  name: string;
  description?: string;
  /** The argument array to run on the deployment's server. */
  argv: string[];
}

/**
 * Turns a type's predefined commands into the argument arrays to run on a server for one
 * container: container commands go through `docker exec`, host commands get {{container}}
 * replaced. The container name was validated against Docker's rule, so it is a plain word.
 */
export function resolveCommands(commands: TypeCommand[], containerName: string): ResolvedCommand[] {
  return commands.map((c) => ({
    name: c.name,
    ...(c.description !== undefined && { description: c.description }),
    argv: c.target === 'host'
      ? c.command.map((arg) => arg.split('{{container}}').join(containerName))
      : ['docker', 'exec', containerName, ...c.command],
  }));
}
