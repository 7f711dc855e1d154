// File commands on a server. Uploads go through sftp.ts (atomic rename); these cover the rest.
export function mkdirP(path: string, mode?: number): string[] {
  return mode === undefined ? ['mkdir', '-p', '--', path] : ['mkdir', '-p', '-m', mode.toString(8), '--', path];
}
export const cat = (path: string): string[] => ['cat', '--', path];
export const sha256sum = (path: string): string[] => ['sha256sum', '--', path];
export const removeFile = (path: string): string[] => ['rm', '-f', '--', path];
export const removeTree = (path: string): string[] => ['rm', '-rf', '--', path];
export const chmod = (mode: number, path: string): string[] => ['chmod', mode.toString(8), '--', path];
export const move = (from: string, to: string): string[] => ['mv', '-f', '--', from, to];
/** Exit 0 when the path exists. */
export const exists = (path: string): string[] => ['test', '-e', path];
export const listDir = (path: string): string[] => ['ls', '-1A', '--', path];
/** Each path with its symlinks resolved, one a line (GNU `realpath -m`: missing parts are fine). */
export const canonicalPaths = (paths: string[]): string[] => ['realpath', '-m', '--', ...paths];
