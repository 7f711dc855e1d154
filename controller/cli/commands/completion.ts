import type { Command } from 'commander';
import { UsageError } from '../cli-error.js';
import { out } from '../command-context.js';
import { KINDS } from '../kinds.js';

/** The subcommands of a command (plan's, context's), from the program, so a new one completes too. */
const subcommandsOf = (program: Command, name: string) => program.commands.find((c) => c.name() === name)?.commands.map((c) => c.name()).join(' ') ?? '';

/**
 * Completion of command names, of the kinds after get, delete, edit, disown and describe, and of
 * subcommands; generated from the program, so a new command completes too.
 */
export function completionScript(shell: string, program: Command): string {
  const commands = program.commands.map((c) => c.name()).filter((n) => n !== 'completion').concat('completion', 'help').join(' ');
  const kinds = Object.keys(KINDS).join(' ');
  const itemKinds = Object.entries(KINDS).filter(([, v]) => v.item).map(([k]) => k).join(' ');
  const plan = subcommandsOf(program, 'plan');
  const context = subcommandsOf(program, 'context');
  const sync = subcommandsOf(program, 'sync');
  if (shell === 'bash') {
    return `# stevedore bash completion: source <(stevedore completion bash)
_stevedore() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]}
  case "$prev" in
    get) COMPREPLY=($(compgen -W "${kinds}" -- "$cur")); return;;
    delete|edit|disown) COMPREPLY=($(compgen -W "${itemKinds}" -- "$cur")); return;;
    top) COMPREPLY=($(compgen -W "servers services" -- "$cur")); return;;
    context) COMPREPLY=($(compgen -W "${context}" -- "$cur")); return;;
    plan) COMPREPLY=($(compgen -W "${plan}" -- "$cur")); return;;
    sync) COMPREPLY=($(compgen -W "${sync}" -- "$cur")); return;;
    completion) COMPREPLY=($(compgen -W "bash zsh" -- "$cur")); return;;
    describe) COMPREPLY=($(compgen -W "service ${itemKinds}" -- "$cur")); return;;
  esac
  if [ "$COMP_CWORD" -eq 1 ]; then COMPREPLY=($(compgen -W "${commands}" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
}
complete -F _stevedore stevedore
`;
  }
  if (shell === 'zsh') {
    return `#compdef stevedore
# stevedore zsh completion: source <(stevedore completion zsh)
_stevedore() {
  if (( CURRENT == 2 )); then compadd ${commands}; return; fi
  case "$words[2]" in
    get) (( CURRENT == 3 )) && compadd ${kinds};;
    delete|edit|disown|describe) (( CURRENT == 3 )) && compadd ${itemKinds};;
    top) (( CURRENT == 3 )) && compadd servers services;;
    context) (( CURRENT == 3 )) && compadd ${context};;
    plan) (( CURRENT == 3 )) && compadd ${plan};;
    sync) (( CURRENT == 3 )) && compadd ${sync};;
    completion) compadd bash zsh;;
    *) _files;;
  esac
}
compdef _stevedore stevedore
`;
  }
  throw new UsageError(`completion for ${shell}: bash or zsh`);
}

export function registerCompletion(program: Command): void {
  program.command('completion').argument('<shell>', 'bash or zsh').description('print a shell completion script')
    .action((shell: string) => out(completionScript(shell, program)));
}
