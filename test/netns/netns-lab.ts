// A throwaway network of Linux network namespaces for the netns test: one "hub" namespace holding
// a bridge, and one namespace per host, each joined to the bridge by a veth pair and given its own
// IPv4 address. Nothing is created in the machine's own namespace (the veth pairs are made inside
// the hub), so the host's network is never touched. Names are host-visible in `ip netns list` and
// /etc/netns/: they all start with PREFIX<pid>x<random>-, so a run's leftovers (a mocha that was
// SIGKILLed) are recognisable and removed by the next run (sweepStale), and two runs never clash.
//
// Host names: `ip netns exec NS` bind-mounts /etc/netns/NS/hosts over /etc/hosts for what it runs,
// so every namespace gets a hosts file naming every host (the machine's /etc/hosts is not touched).
// Those files are rewritten in place when an address moves, which a running process sees at its
// next name lookup.
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const PREFIX = 'lkn';
const ETC_NETNS = '/etc/netns';

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Why namespaces cannot be made here (not root, no iproute2, no permission), or undefined if they can. */
export function cannotCreateNamespaces(): string | undefined {
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  if (process.getuid?.() !== 0) return 'not running as root (ip netns needs CAP_SYS_ADMIN)';
  const probe = `${PREFIX}${process.pid}xprobe`; // swept like a run's names if left behind
  try {
    ip('netns', 'add', probe);
    ip('netns', 'del', probe);
    return undefined;
  } catch (e) {
    return `ip netns add failed: ${(e as Error).message.split('\n')[0]}`;
  }
}

/** Remove namespaces and /etc/netns dirs left by runs whose process is gone. */
export function sweepStale(): void {
  const re = new RegExp(`^${PREFIX}(\\d+)x`);
  const stale = (name: string) => {
    const m = re.exec(name);
    return !!m && !alive(Number(m[1]));
  };
  for (const line of ip('netns', 'list').split('\n')) {
    const name = line.split(' ')[0];
    if (name && stale(name)) ip('netns', 'del', name);
  }
  if (existsSync(ETC_NETNS)) for (const d of readdirSync(ETC_NETNS)) if (stale(d)) rmSync(join(ETC_NETNS, d), { recursive: true, force: true });
}

interface Host {
  readonly ns: string;
  /** The veth end in the hub (link down = the host is cut off). */
  readonly hubIf: string;
  address: string;
}

export class NetnsLab {
  readonly run = `${PREFIX}${process.pid}x${Math.random().toString(36).slice(2, 6)}`;
  private readonly hub = `${this.run}-hub`;
  private readonly hosts = new Map<string, Host>();
  private readonly procs = new Set<ChildProcess>();
  private created = false;
  /** /etc/netns did not exist before this run: removed again once empty. */
  private readonly madeEtcNetns = !existsSync(ETC_NETNS);
  private cleaned = false;
  /** Cleanup even when mocha exits without running the after hook. */
  private readonly onExit = () => this.cleanup();

  constructor(private readonly subnet = '10.77.0') {
    process.once('exit', this.onExit);
  }

  /** The hub namespace with its bridge. */
  create(): void {
    this.created = true;
    ip('netns', 'add', this.hub);
    ip('-n', this.hub, 'link', 'add', 'br0', 'type', 'bridge');
    ip('-n', this.hub, 'link', 'set', 'br0', 'up');
  }

  /** A host `name` at SUBNET.`octet`, joined to the bridge. */
  addHost(name: string, octet: number): void {
    const ns = `${this.run}-${name}`;
    const hubIf = `v-${name}`.slice(0, 15);
    ip('netns', 'add', ns);
    this.hosts.set(name, { ns, hubIf, address: `${this.subnet}.${octet}` });
    ip('-n', this.hub, 'link', 'add', hubIf, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
    ip('-n', this.hub, 'link', 'set', hubIf, 'master', 'br0');
    ip('-n', this.hub, 'link', 'set', hubIf, 'up');
    ip('-n', ns, 'link', 'set', 'lo', 'up');
    ip('-n', ns, 'addr', 'add', `${this.subnet}.${octet}/24`, 'dev', 'eth0');
    ip('-n', ns, 'link', 'set', 'eth0', 'up');
    mkdirSync(join(ETC_NETNS, ns), { recursive: true });
    this.writeHosts();
  }

  address(name: string): string {
    return this.host(name).address;
  }

  /** Move host `name` to SUBNET.`octet` (its name now resolves there everywhere). */
  moveHost(name: string, octet: number): void {
    const h = this.host(name);
    const next = `${this.subnet}.${octet}`;
    // Old one first: deleting a subnet's primary address also deletes its secondaries.
    ip('-n', h.ns, 'addr', 'del', `${h.address}/24`, 'dev', 'eth0');
    ip('-n', h.ns, 'addr', 'add', `${next}/24`, 'dev', 'eth0');
    h.address = next;
    this.writeHosts();
  }

  /** Cut host `name` off the bridge (up = false) or join it again. */
  setLink(name: string, up: boolean): void {
    ip('-n', this.hub, 'link', 'set', this.host(name).hubIf, up ? 'up' : 'down');
  }

  /** Run a command inside host `name`'s namespace (its PID is the command's: ip netns exec execs it). */
  spawn(name: string, command: string, args: readonly string[], opts: SpawnOptions = {}): ChildProcess {
    const proc = spawn('ip', ['netns', 'exec', this.host(name).ns, command, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    this.procs.add(proc);
    proc.once('exit', () => this.procs.delete(proc));
    return proc;
  }

  private host(name: string): Host {
    const h = this.hosts.get(name);
    if (!h) throw new Error(`no host ${name}`);
    return h;
  }

  /** Every namespace's hosts file: localhost and every host, rewritten in place. */
  private writeHosts(): void {
    const lines = ['127.0.0.1 localhost', ...[...this.hosts].map(([name, h]) => `${h.address} ${name}`)].join('\n') + '\n';
    for (const h of this.hosts.values()) writeFileSync(join(ETC_NETNS, h.ns, 'hosts'), lines);
  }

  /** Kill what runs inside, delete every namespace (their links and the bridge go with them) and /etc/netns dirs. Idempotent, never throws. */
  cleanup(): void {
    if (this.cleaned) return;
    this.cleaned = true;
    process.removeListener('exit', this.onExit);
    for (const p of this.procs) {
      try {
        p.kill('SIGKILL');
      } catch {
        // gone
      }
    }
    if (!this.created) return;
    for (const ns of [...[...this.hosts.values()].map((h) => h.ns), this.hub]) {
      try {
        ip('netns', 'del', ns);
      } catch {
        // never created, or gone
      }
      rmSync(join(ETC_NETNS, ns), { recursive: true, force: true });
    }
    try {
      if (this.madeEtcNetns && readdirSync(ETC_NETNS).length === 0) rmdirSync(ETC_NETNS);
    } catch {
      // another run's files are in it, or it is gone
    }
  }

  /** Names this run still has in `ip netns list` (for the test's own cleanup check). */
  leftovers(): string[] {
    return ip('netns', 'list')
      .split('\n')
      .map((l) => l.split(' ')[0])
      .filter((n) => n.startsWith(`${this.run}-`));
  }
}
