import fs from 'node:fs';
import type { Services } from '../../controller/services.js';
import { AppError } from '../../controller/errors/app-error.js';
import {
  CLI_ARCHES, CLI_OSES, cliBundle, cliDownloads, cliFileName, type CliArch, type CliOs,
} from '../../controller/cli-dist/cli-artifacts.js';
import { route, result } from '../http/route.js';
import { arrayOf, enumOf, int, object, str } from '../http/schema.js';

const downloadRead = object({
  os: enumOf(...CLI_OSES), arch: enumOf(...CLI_ARCHES), version: str(), format: enumOf('node-bundle'), requires: str(),
  fileName: str(), size: int(0), sha256: str({ pattern: '^[0-9a-f]{64}$' }), url: str(),
});

/** The `stevedore` CLI for download: GET /api/system/cli (list with checksums), GET /api/system/cli/{os}/{arch} (the file). */
export default function systemCliRoutes(s: Services) {
  return [
    route({
      method: 'GET', path: '/api/system/cli', operationId: 'listCliDownloads', tag: 'system', access: 'viewer', envExempt: true,
      summary: 'CLI downloads by OS and architecture with size and SHA-256. Each is the same single-file JavaScript bundle '
        + 'for Node >= 20 (format node-bundle): run it with `node stevedore.cjs` or make it executable',
      response: object({ items: arrayOf(downloadRead) }),
      async handler() {
        return { items: cliDownloads(await cliBundle(s.config.stateDir)) };
      },
    }),

    route({
      method: 'GET', path: '/api/system/cli/{os}/{arch}', operationId: 'downloadCli', tag: 'system', access: 'viewer', envExempt: true,
      summary: 'Download the CLI for an OS (linux, darwin, windows) and architecture (x64, arm64); X-Checksum-Sha256 carries its SHA-256',
      errors: [404], responseType: 'application/octet-stream',
      response: { type: 'string', format: 'binary', description: 'The single-file CLI bundle' },
      async handler(_ctx, { params }) {
        const os = params.os as CliOs;
        const arch = params.arch as CliArch;
        if (!CLI_OSES.includes(os) || !CLI_ARCHES.includes(arch)) {
          throw new AppError('NOT_FOUND', `No CLI build for ${params.os}/${params.arch}`,
            { hint: `Available: ${CLI_OSES.join(', ')} on ${CLI_ARCHES.join(', ')}` });
        }
        const bundle = await cliBundle(s.config.stateDir);
        return result(200, fs.createReadStream(bundle.file), {
          'content-type': 'application/octet-stream',
          'content-length': String(bundle.size),
          'content-disposition': `attachment; filename="${cliFileName(os, arch)}"`,
          'x-checksum-sha256': bundle.sha256,
        });
      },
    }),
  ];
}
