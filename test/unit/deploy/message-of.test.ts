import { expect } from 'chai';
import { messageOf } from '../../../controller/deploy/message-of.js';

describe('messageOf', () => {
  it('says a lost database is the cause, without the SQL knex puts in front of the message', () => {
    const lost = Object.assign(new Error('select * from "services" where "id" = $1 - terminating connection due to administrator command'), { code: '57P01' });
    expect(messageOf(lost)).to.equal('the database was unreachable (terminating connection due to administrator command)');
    const readOnly = Object.assign(new Error('update "plan_steps" set "status" = $1 - cannot execute UPDATE in a read-only transaction'), { code: '25006' });
    expect(messageOf(readOnly)).to.equal('the database was unreachable (cannot execute UPDATE in a read-only transaction)');
  });

  it('leaves every other error as its message', () => {
    expect(messageOf(new Error('pull access denied - repository does not exist'))).to.equal('pull access denied - repository does not exist');
    expect(messageOf('plain')).to.equal('plain');
    // a refused port of a server or a health check is not the database
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:8080'), { code: 'ECONNREFUSED' });
    expect(messageOf(refused)).to.equal('connect ECONNREFUSED 10.0.0.5:8080');
  });
});
