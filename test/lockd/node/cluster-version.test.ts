// The cluster version and its gate (node/cluster-version.ts), pure: the lowest version among the
// members as this node heard them; a member not heard from, one that states no version (the
// previous release) or one whose version does not parse keeps every 0.2.0 feature shut. The real
// feature it gates: TickCommand.clusterVersion, a field the previous release's decoder refuses.
import { expect } from 'chai';
import {
  FEATURES,
  UNSTATED_VERSION,
  clusterVersion,
  compareVersions,
  featureEnabled,
  tickClusterVersion,
  tickExpiryWork,
  type MemberVersion,
} from '../../../src/lockd/node/cluster-version.js';
import { PeerDirectory } from '../../../src/lockd/node/peer-directory.js';
import { LOCKD_VERSION, buildLine, versionInLine } from '../../../src/lockd/node/versions.js';
import { decodeCommand, encodeCommand, validateCommand } from '../../../src/lockd/state-machine/index.js';

const heard = (version: string): MemberVersion => ({ heard: true, version });
const NOT_HEARD: MemberVersion = { heard: false };

describe('cluster version', () => {
  it('orders MAJOR.MINOR.PATCH numerically', () => {
    expect(compareVersions('0.2.0', '0.10.0')).to.be.below(0);
    expect(compareVersions('1.0.0', '0.99.99')).to.be.above(0);
    expect(compareVersions('0.2.0', '0.2.0')).to.equal(0);
    expect(() => compareVersions('0.2', '0.2.0')).to.throw(/MAJOR.MINOR.PATCH/);
  });

  it('is the lowest version among the members; complete only once every member was heard', () => {
    const of = (m: Record<string, MemberVersion>) => (id: string) => m[id] ?? NOT_HEARD;
    expect(clusterVersion(['n1', 'n2', 'n3'], of({ n1: heard('0.2.0'), n2: heard('0.2.0'), n3: heard('0.2.0') }))).to.deep.equal({
      version: '0.2.0',
      complete: true,
    });
    // One member of the previous release (it states no version): the cluster runs at 0.1.0.
    expect(clusterVersion(['n1', 'n2', 'n3'], of({ n1: heard('0.2.0'), n2: heard(UNSTATED_VERSION), n3: heard('0.2.0') }))).to.deep.equal({
      version: '0.1.0',
      complete: true,
    });
    // A newer member does not raise it above the oldest.
    expect(clusterVersion(['n1', 'n2', 'n3'], of({ n1: heard('0.2.0'), n2: heard('0.3.1'), n3: heard('0.2.0') })).version).to.equal('0.2.0');
    // Not heard from: it could be anything down to the previous release.
    expect(clusterVersion(['n1', 'n2', 'n3'], of({ n1: heard('0.2.0'), n2: heard('0.2.0') }))).to.deep.equal({ version: '0.1.0', complete: false });
    // A version that does not parse counts as the oldest.
    expect(clusterVersion(['n1', 'n2'], of({ n1: heard('0.2.0'), n2: heard('banana') })).version).to.equal('0.1.0');
  });

  it('enables a feature only at or above the version that introduced it', () => {
    expect(FEATURES.tickClusterVersion).to.equal('0.2.0');
    expect(featureEnabled('tickClusterVersion', '0.1.0')).to.equal(false);
    expect(featureEnabled('tickClusterVersion', '0.2.0')).to.equal(true);
    expect(featureEnabled('tickClusterVersion', '1.0.0')).to.equal(true);
  });

  it('gates the Tick field: stated only when every member runs 0.2.0 or newer, once per change', () => {
    expect(tickClusterVersion({ version: '0.1.0', complete: true }, undefined)).to.equal(undefined);
    expect(tickClusterVersion({ version: '0.1.0', complete: false }, undefined)).to.equal(undefined);
    expect(tickClusterVersion({ version: '0.2.0', complete: false }, undefined)).to.equal(undefined);
    expect(tickClusterVersion({ version: '0.2.0', complete: true }, undefined)).to.equal('0.2.0');
    expect(tickClusterVersion({ version: '0.2.0', complete: true }, '0.2.0')).to.equal(undefined);
    expect(tickClusterVersion({ version: '0.3.0', complete: true }, '0.2.0')).to.equal('0.3.0');
  });

  it("bounds a Tick's expiry work only when every member runs 0.2.0 or newer (else every due lease ends, as 0.1.0 applies it)", () => {
    expect(tickExpiryWork({ version: '0.2.0', complete: true }, 4096)).to.equal(4096);
    expect(tickExpiryWork({ version: '0.1.0', complete: true }, 4096)).to.equal(undefined);
    expect(tickExpiryWork({ version: '0.2.0', complete: false }, 4096)).to.equal(undefined);
    expect(tickExpiryWork(undefined, 4096)).to.equal(4096); // no peers' versions tracked: every member is this build
    const bounded = { type: 'Tick', elapsedMs: 100, marginMs: 20, renewed: [7], expiryWork: 4096 } as const;
    expect(decodeCommand(encodeCommand(bounded))).to.deep.equal(bounded);
    expect(validateCommand({ ...bounded, expiryWork: 0 })?.message).to.match(/expiryWork/);
    expect(validateCommand({ ...bounded, expiryWork: 4097 })?.message).to.match(/expiryWork/);
    expect(validateCommand({ ...bounded, expiryWork: 1.5 })?.message).to.match(/expiryWork/);
  });

  it('the field is what the previous release refuses: a Tick without it encodes as before, with it a second presence bit is set', () => {
    const plain = encodeCommand({ type: 'Tick', elapsedMs: 100, marginMs: 20, renewed: [7] });
    // format 2, type Tick (3), presence 0, elapsed 100+1, margin 20+1, 1 renewal: 7+1 — the previous release's bytes.
    expect([...plain]).to.deep.equal([2, 3, 0, 101, 21, 1, 8]);
    const stated = encodeCommand({ type: 'Tick', elapsedMs: 100, marginMs: 20, renewed: [7], clusterVersion: '0.2.0' });
    // Presence 0b10: the previous release's Tick has one optional field and refuses presence >= 2
    // ("Tick has presence bits for fields it does not have"), which would stop that replica.
    expect(stated[2]).to.equal(2);
    expect(decodeCommand(stated)).to.deep.equal({ type: 'Tick', elapsedMs: 100, marginMs: 20, renewed: [7], clusterVersion: '0.2.0' });
    expect(validateCommand({ type: 'Tick', elapsedMs: 100, marginMs: 20, renewed: [], clusterVersion: '0.2' })?.message).to.match(/MAJOR.MINOR.PATCH/);
    expect(validateCommand({ type: 'Tick', elapsedMs: 100, marginMs: 20, renewed: [], clusterVersion: '0.2.0' })).to.equal(undefined);
  });

  it('a node knows each member by the build line it states on its peer streams (none: the previous release)', () => {
    const dir = new PeerDirectory(
      'n1',
      new Map([
        ['n1', '127.0.0.1:1'],
        ['n2', '127.0.0.1:2'],
        ['n3', '127.0.0.1:3'],
      ]),
      '127.0.0.1:11',
    );
    expect(dir.versionOf('n1')).to.deep.equal({ heard: true, version: LOCKD_VERSION });
    expect(dir.clusterVersion()).to.deep.equal({ version: '0.1.0', complete: false });
    expect(dir.learn('n2', { client: '127.0.0.1:12', build: buildLine() })).to.equal(true);
    expect(dir.learn('n3', { client: '127.0.0.1:13' })).to.equal(true); // a previous-release node states no version
    expect(dir.clusterVersion()).to.deep.equal({ version: '0.1.0', complete: true });
    expect(dir.learn('n3', { client: '127.0.0.1:13', build: buildLine() })).to.equal(true); // n3 restarted on this build
    expect(dir.clusterVersion()).to.deep.equal({ version: LOCKD_VERSION, complete: true });
    expect(versionInLine(buildLine())).to.equal(LOCKD_VERSION);
    expect(versionInLine('something else')).to.equal('');
  });
});
