// The principal of a call (security/principal.ts): a client certificate's one CN, carried in the
// lockd-principal header percent-encoded (a CN may hold any Unicode; a gRPC text header only ASCII).
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import type { PeerCertificate } from 'node:tls';
import { certificatePrincipal, principalFromHeader, principalHeaderValue, principalOf, PRINCIPAL_HEADER } from '../../src/lockd/security/principal.js';

const cert = (subject: Record<string, unknown>) => ({ subject }) as unknown as PeerCertificate;

describe('principals: certificate CN and the lockd-principal header', () => {
  it('is the certificate’s one subject CN; several, none or an unusable one name no principal', () => {
    expect(certificatePrincipal(cert({ CN: 'alice', O: 'x' }))).to.deep.equal({ principal: 'alice' });
    expect(certificatePrincipal(cert({ CN: ['a', 'b'] })))
      .to.have.property('problem')
      .that.contains('several');
    expect(certificatePrincipal(cert({ O: 'x' })))
      .to.have.property('problem')
      .that.contains('no subject CN');
    expect(certificatePrincipal(cert({ CN: '' })))
      .to.have.property('problem')
      .that.contains('not a usable principal');
    expect(certificatePrincipal(undefined)).to.have.property('problem');
  });

  it('survives the header for any Unicode principal (grpc-js refuses non-ASCII text headers), and a malformed value is no principal', () => {
    const md = new grpc.Metadata();
    for (const p of ['alice', 'José Müller', '名前', 'a%b c']) {
      md.set(PRINCIPAL_HEADER, principalHeaderValue(p)); // would throw with the raw value for non-ASCII
      expect(principalOf(md)).to.equal(p);
    }
    expect(principalFromHeader('%E0%A4%A')).to.equal(undefined);
    expect(principalFromHeader('a%00b')).to.equal(undefined); // a control character
    expect(principalOf(new grpc.Metadata())).to.equal('anonymous');
  });
});
