import { expect } from 'chai';
import { loadManifests } from '../../../controller/manifests/load.js';
import { formatError } from '../../../controller/manifests/types.js';

const env = 'apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: data}\nspec: {}\n';
const errorsOf = (spec: string) => loadManifests([
  { path: 'env.yaml', content: env },
  { path: 'db.yaml', content: `apiVersion: stevedore/v1\nkind: Database\nmetadata: {name: shop, environment: data}\nspec:\n  type: postgres\n  databaseName: shop\n${spec}` },
]).errors.map(formatError);

describe('manifest Database schedules', () => {
  it('accepts cron expressions of 5 or 6 fields in a known time zone', () => {
    expect(errorsOf('  timezone: Europe/Paris\n  backupSchedule: "0 3 * * *"\n  drillSchedule: "0 30 4 * * 0"\n')).to.deep.equal([]);
  });

  it('refuses a bad cron expression when the folder is validated, naming the field and the line', () => {
    expect(errorsOf('  backupSchedule: "61 3 * * *"\n')).to.deep.equal([
      "db.yaml:7:19: spec/backupSchedule: '61 3 * * *': Invalid cron expression: Field value (61) is out of range"]);
    const [drill] = errorsOf('  backupSchedule: "0 3 * * *"\n  drillSchedule: "0 3 31 2 *"\n');
    expect(drill).to.match(/^db\.yaml:8:\d+: spec\/drillSchedule: '0 3 31 2 \*': Invalid cron expression: .*No execution date/);
    expect(drill).not.to.include('\n'); // the cron package's debugging dump is left out
  });

  it('refuses an unknown time zone of a schedule once, on timezone', () => {
    expect(errorsOf('  timezone: Mars/Olympus\n  backupSchedule: "0 3 * * *"\n  drillSchedule: "0 4 * * *"\n'))
      .to.deep.equal(["db.yaml:7:13: spec/timezone: Unknown time zone 'Mars/Olympus'"]);
  });
});
