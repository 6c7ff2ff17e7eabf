// The cluster's peer network as one proxy per directed link. Node i is started with its own --peers
// list, in which every other node j's PEER address is that of proxy i→j (itself at its real peer
// address), so all traffic i sends toward j — Raft messages on i's stream to j, and client calls i
// forwards to a leader j (forwarding dials the leader's peer port) — crosses that proxy. Each node
// sends on its own outbound streams only, so blocking i→j silences i toward j while j still
// reaches i: links really are directed. Clients reach node j's CLIENT port through one more proxy,
// the client link of j (all clients share it; j advertises it as its client address), so a
// client's request can be held, delayed or reset on its way too — and land after the client gave
// up on it and retried. With TLS the proxies pass the encrypted bytes through: a node checks the
// member id in the certificate, not the address.
import { LinkProxy, type LinkMode } from './tcp-proxy.js';

export type Link = readonly [from: string, to: string];

export class ProxyMesh {
  private constructor(
    readonly ids: readonly string[],
    private readonly real: ReadonlyMap<string, string>,
    private readonly links: ReadonlyMap<string, LinkProxy>,
    private readonly clientLinks: ReadonlyMap<string, LinkProxy>,
  ) {}

  /**
   * One proxy per ordered pair of distinct nodes toward `addresses` (node id → its real peer
   * address, --peer-listen), and one client link per node toward `clientAddresses` (its real
   * --listen; default: `addresses`).
   */
  static async start(addresses: ReadonlyMap<string, string>, clientAddresses: ReadonlyMap<string, string> = addresses): Promise<ProxyMesh> {
    const ids = [...addresses.keys()];
    const links = new Map<string, LinkProxy>();
    const clientLinks = new Map<string, LinkProxy>();
    try {
      for (const from of ids) for (const to of ids) if (from !== to) links.set(key(from, to), await LinkProxy.start(addresses.get(to)!));
      for (const to of ids) clientLinks.set(to, await LinkProxy.start(clientAddresses.get(to)!));
    } catch (e) {
      await Promise.all([...links.values(), ...clientLinks.values()].map((l) => l.close()));
      throw e;
    }
    return new ProxyMesh(ids, addresses, links, clientLinks);
  }

  /** Where clients dial node `id`: its client link. */
  clientAddress(id: string): string {
    return this.clientLink(id).address;
  }

  clientLink(id: string): LinkProxy {
    const l = this.clientLinks.get(id);
    if (!l) throw new Error(`no client link to ${id}`);
    return l;
  }

  /** The --peers flag for node `id`: itself at its real address, every other node behind its proxy. */
  peersFlagFor(id: string): string {
    return this.ids.map((j) => `${j}=${j === id ? this.real.get(j)! : this.link(id, j).address}`).join(',');
  }

  link(from: string, to: string): LinkProxy {
    const l = this.links.get(key(from, to));
    if (!l) throw new Error(`no link ${from}→${to}`);
    return l;
  }

  /** Exactly these peer links are cut (in `mode`; `delayMs` for delay); every other peer link is up. Client links are left alone. */
  cut(links: readonly Link[], mode: Exclude<LinkMode, 'up'>, delayMs = 0): void {
    const down = new Set(links.map(([a, b]) => key(a, b)));
    for (const [k, l] of this.links) {
      if (down.has(k)) l.setMode(mode, delayMs);
      else l.setMode('up');
    }
  }

  /** The client links of these nodes are put in `mode`; other client links are up. Peer links are left alone. */
  cutClients(ids: readonly string[], mode: Exclude<LinkMode, 'up'>, delayMs = 0): void {
    for (const [id, l] of this.clientLinks) {
      if (ids.includes(id)) l.setMode(mode, delayMs);
      else l.setMode('up');
    }
  }

  /** Every link up; bytes held by a hang or a delay are released, in order. */
  heal(): void {
    for (const l of [...this.links.values(), ...this.clientLinks.values()]) l.setMode('up');
  }

  /** Links currently not up, as "a→b" (peer) or "clients→b". */
  cutLinks(): string[] {
    return [
      ...[...this.links].filter(([, l]) => l.mode !== 'up').map(([k]) => k),
      ...[...this.clientLinks].filter(([, l]) => l.mode !== 'up').map(([id]) => key('clients', id)),
    ];
  }

  async close(): Promise<void> {
    await Promise.all([...this.links.values(), ...this.clientLinks.values()].map((l) => l.close()));
  }
}

function key(from: string, to: string): string {
  return `${from}→${to}`;
}

/** Both directions of every link between different groups. */
export function splitLinks(groups: readonly (readonly string[])[]): Link[] {
  const out: Link[] = [];
  for (const g of groups) for (const h of groups) if (g !== h) for (const a of g) for (const b of h) out.push([a, b]);
  return out;
}

/** A ring in the given order: each node reaches only its two neighbours (a majority overlaps for 5 nodes). */
export function ringLinks(order: readonly string[]): Link[] {
  const n = order.length;
  const out: Link[] = [];
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const d = Math.min((i - j + n) % n, (j - i + n) % n);
      if (d > 1) out.push([order[i], order[j]]);
    }
  return out;
}

/** Everything `id` sends is lost, while it still hears everyone (or the reverse when `inbound`). */
export function oneWayLinks(id: string, ids: readonly string[], inbound = false): Link[] {
  return ids.filter((j) => j !== id).map((j) => (inbound ? [j, id] : [id, j]) as Link);
}
