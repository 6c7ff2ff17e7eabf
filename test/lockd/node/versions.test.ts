// This build's version line: package.json's version, and the formats the build writes.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { BUILD_FORMATS, LOCKD_VERSION, buildLine, versionText } from '../../../src/lockd/node/versions.js';

describe('versions', () => {
  it("LOCKD_VERSION is package.json's, and the build line names every format", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(LOCKD_VERSION).to.equal(pkg.version);
    const f = BUILD_FORMATS;
    expect(buildLine()).to.equal(`lockd/${pkg.version} storage=${f.storage} snapshot=${f.snapshot} command=${f.command} frame=${f.frame} backup=${f.backup}`);
    expect(versionText('lockd').split('\n')[0]).to.equal(`lockd ${pkg.version}`);
    expect(versionText('lockd')).to.include(`storage format   ${f.storage} (reads ${f.storage - 1} and migrates it on start)`);
  });
});
