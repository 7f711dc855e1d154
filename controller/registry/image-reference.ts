// Where an image lives: "10.0.0.1:5000/team/web" is repository "team/web" on 10.0.0.1:5000;
// a name without a registry host is Docker Hub's ("nginx" is "library/nginx").
import { registryHostOf } from '../deploy/registry-auth.js';

export function repositoryOf(imageName: string): { host: string | null; repository: string } {
  const host = registryHostOf(imageName);
  const path = host ? imageName.slice(host.length + 1) : imageName;
  return { host, repository: !host && !path.includes('/') ? `library/${path}` : path };
}
