// `lockctl acl quota PRINCIPAL [QUOTA=N...] [--reset]` on the command line: the variadic tail and
// the flag parse, and bad input is a usage error before anything is sent.
import { expect } from 'chai';
import { parseCommandLine, UsageError } from '../../src/client/lockctl/args.js';

const env = { LOCKD_ENDPOINTS: '127.0.0.1:1' };

describe('lockctl acl quota: arguments', () => {
  it('collects QUOTA=N after the principal, takes --reset, and shows with nothing to set', () => {
    const p = parseCommandLine(['acl', 'quota', 'alice', 'leases=5', 'dedup_ids=0', '--reset'], env);
    expect(p.spec.path).to.deep.equal(['acl', 'quota']);
    expect(p.args.PRINCIPAL).to.equal('alice');
    expect(p.more).to.deep.equal(['leases=5', 'dedup_ids=0']);
    expect(p.flags.reset).to.equal(true);
    const show = parseCommandLine(['acl', 'quota', '*'], env);
    expect(show.args.PRINCIPAL).to.equal('*');
    expect(show.more).to.deep.equal([]);
    expect(show.flags.reset).to.equal(false);
  });

  it('needs the principal, and --reset belongs to acl quota only', () => {
    expect(() => parseCommandLine(['acl', 'quota'], env)).to.throw(UsageError, /expected PRINCIPAL/);
    expect(() => parseCommandLine(['acl', 'list', '--reset'], env)).to.throw(UsageError, /--reset does not apply/);
    // Other commands still refuse extra positionals.
    expect(() => parseCommandLine(['acl', 'list', 'x'], env)).to.throw(UsageError, /expected no arguments/);
  });
});
