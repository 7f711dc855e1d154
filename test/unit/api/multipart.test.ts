import { expect } from 'chai';
import { parseMultipart } from '../../../api/http/multipart.js';

describe('multipart parser', () => {
  it('reads text fields and a binary file part byte for byte', () => {
    const bin = Buffer.from([0, 255, 13, 10, 45, 45, 1]);
    const body = Buffer.concat([
      Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="name"\r\n\r\ncert.der\r\n'),
      Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="file"; filename="c.der"\r\nContent-Type: application/pkix-cert\r\n\r\n'),
      bin,
      Buffer.from('\r\n--XyZ--\r\n'),
    ]);
    const form = parseMultipart(body, 'XyZ');
    expect(form.fields).to.deep.equal({ name: 'cert.der' });
    expect(form.files).to.have.length(1);
    expect(form.files[0]).to.include({ field: 'file', filename: 'c.der', contentType: 'application/pkix-cert' });
    expect(Buffer.compare(form.files[0].data, bin)).to.equal(0);
  });

  it('rejects a body without the boundary as VALIDATION_ERROR on file', () => {
    expect(() => parseMultipart(Buffer.from('nothing here'), 'XyZ')).to.throw().with.property('field', 'file');
  });
});
