// The cluster version (etcd's): the lowest lockd version among the members, as this node knows them
// from the version each one states on its peer streams (transport/metadata.ts VERSION_HEADER). A
// replicated feature that an older build cannot decode or would apply differently is used only
// once the cluster version reaches the version that introduced it, so a rolling upgrade never
// hands an old replica an entry it would refuse (a replica that cannot apply an entry stops).
// Learners count as members: they apply every entry too. Pure: the node passes what it heard.
// Why this is enough, and what it cannot see (a member added on an older build): docs/design.md §12.

/** The version a member that states none is taken for: the previous release, which predates the header. */
export const UNSTATED_VERSION = '0.1.0';

/**
 * Replicated features newer than UNSTATED_VERSION, and the version that introduced each. Never
 * remove one while a supported previous release lacks it.
 */
export const FEATURES = {
  /** TickCommand.clusterVersion: the leader states the cluster version in its Ticks (a 0.1.0 replica refuses the field). */
  tickClusterVersion: '0.2.0',
  /** TickCommand.expiryWork: a Tick ends at most that much expiry work (0.1.0 refuses the field, and ends every due lease). */
  boundedExpiry: '0.2.0',
  /**
   * Per-principal quotas (state-machine/quotas.ts): the leader marks client commands `quota` and
   * proposes QuotaSet, which a build before quotas refuses (and it would apply the marked ones
   * without them). 0.2.0 is unreleased: builds of it before quotas are not supported in a mixed cluster.
   */
  quotas: '0.2.0',
} as const;
export type Feature = keyof typeof FEATURES;

const SEMVER = /^(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})$/;

/** Whether `v` is a plain MAJOR.MINOR.PATCH (no pre-release tag; each part at most 6 digits). */
export function isVersion(v: string): boolean {
  return SEMVER.test(v);
}

/** Negative, 0 or positive as a < b, a = b, a > b (both MAJOR.MINOR.PATCH). */
export function compareVersions(a: string, b: string): number {
  const pa = parts(a);
  const pb = parts(b);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
}

function parts(v: string): [number, number, number] {
  const m = SEMVER.exec(v);
  if (!m) throw new Error(`not a MAJOR.MINOR.PATCH version: ${JSON.stringify(v)}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** What this node knows of one member's build: heard (its stated version, or UNSTATED_VERSION) or not yet. */
export type MemberVersion = { readonly heard: false } | { readonly heard: true; readonly version: string };

/**
 * The cluster version: the lowest version among `members` (self included, as heard). A member not
 * heard from yet could run anything down to UNSTATED_VERSION, so the answer is then at most
 * UNSTATED_VERSION (`complete` false): gates stay shut until every member has spoken.
 */
export function clusterVersion(members: readonly string[], versionOf: (id: string) => MemberVersion): { readonly version: string; readonly complete: boolean } {
  let lowest: string | undefined;
  let complete = true;
  for (const id of members) {
    const v = versionOf(id);
    if (!v.heard) {
      complete = false;
      continue;
    }
    // A stated version this build cannot parse is treated as the oldest: never opens a gate.
    const version = isVersion(v.version) ? v.version : UNSTATED_VERSION;
    if (lowest === undefined || compareVersions(version, lowest) < 0) lowest = version;
  }
  if (!complete || lowest === undefined) lowest = lowest === undefined || compareVersions(lowest, UNSTATED_VERSION) > 0 ? UNSTATED_VERSION : lowest;
  return { version: lowest, complete };
}

/** Whether a cluster at `clusterVersion` may use `feature` (every member supports it). */
export function featureEnabled(feature: Feature, clusterVersion: string): boolean {
  return compareVersions(clusterVersion, FEATURES[feature]) >= 0;
}

/**
 * The cluster version the leader's next Tick states (TickCommand.clusterVersion), or undefined to
 * state none: only once every member is known to decode the field (tickClusterVersion), and only
 * when it differs from what this leader last stated in its term (`stated`), so the log records each
 * change once per term rather than in every Tick.
 */
/**
 * The expiry bound the leader's next Tick carries (TickCommand.expiryWork), or undefined for none
 * (every due lease ends, the 0.1.0 meaning): set once every member is known to run a build that
 * applies it. Without a cluster version to go by (`cv` undefined: a node that tracks no peers'
 * versions, as in the simulator) every member is this build.
 */
export function tickExpiryWork(cv: { readonly version: string; readonly complete: boolean } | undefined, budget: number): number | undefined {
  if (cv && (!cv.complete || !featureEnabled('boundedExpiry', cv.version))) return undefined;
  return budget;
}

export function tickClusterVersion(cv: { readonly version: string; readonly complete: boolean }, stated: string | undefined): string | undefined {
  if (!cv.complete || !featureEnabled('tickClusterVersion', cv.version)) return undefined;
  return cv.version === stated ? undefined : cv.version;
}

/** Whether every member is known to run `feature` (heard from all, and the lowest version has it). */
export function clusterHas(feature: Feature, cv: { readonly version: string; readonly complete: boolean }): boolean {
  return cv.complete && featureEnabled(feature, cv.version);
}
