// A node's transport security, in one place: credentials for its two listeners and its outbound
// peer channels, the check of a peer caller's certificate, and reloading on SIGHUP. Without TLS
// everything is insecure and every peer check passes (the cluster id header is then all there is).
//
// Rules with TLS on:
// - peer port: a client certificate signed by the CA is required, and the peer service then checks
//   it names the member id the caller claims (peer-identity.ts);
// - outbound peer channels (Raft streams, forwarding): the node presents its own certificate and
//   accepts the server only if its certificate names the member id dialed, whatever address
//   (proxy, NAT) the connection went through;
// - public port: TLS with the node certificate; client certificates required only with
//   --client-cert-auth.
import * as grpc from '@grpc/grpc-js';
import type { PeerCertificate, SecureContextOptions } from 'node:tls';
import type { SecuritySettings } from './settings.js';
import { peerCertProblem, peerDnsName } from './peer-identity.js';
import { certificatePrincipal } from './principal.js';
import { ANONYMOUS } from '../state-machine/index.js';
import { ReloadableCertificateProvider, ReloadableServerCredentials } from './reloadable-certs.js';
import { loadTlsMaterial, type TlsMaterial } from './tls-material.js';

export interface PeerChannel {
  readonly credentials: grpc.ChannelCredentials;
  /** Channel options that go with the credentials (the TLS name to ask for). */
  readonly options: grpc.ChannelOptions;
}

/** What a server call offers to identify its caller. */
export interface AuthenticatedCall {
  getAuthContext(): { sslPeerCertificate?: PeerCertificate };
}

interface Tls {
  readonly config: NonNullable<SecuritySettings['tls']>;
  readonly id: string;
  readonly clientCertAuth: boolean;
  readonly provider: ReloadableCertificateProvider;
  readonly publicCreds: ReloadableServerCredentials;
  readonly peerCreds: ReloadableServerCredentials;
  material: TlsMaterial;
}

export class NodeSecurity {
  private readonly peerChannels = new Map<string, PeerChannel>();
  private readonly reloadListeners = new Set<() => void>();

  private constructor(private readonly tls: Tls | undefined) {}

  /** From the node's flags; throws TlsMaterialError when the files are unusable. */
  static fromConfig(config: Pick<SecuritySettings, 'id' | 'tls' | 'clientCertAuth'>): NodeSecurity {
    if (!config.tls) return new NodeSecurity(undefined);
    const material = loadTlsMaterial(config.tls, config.id);
    return new NodeSecurity({
      config: config.tls,
      id: config.id,
      clientCertAuth: config.clientCertAuth,
      material,
      provider: new ReloadableCertificateProvider(material),
      publicCreds: new ReloadableServerCredentials(material, config.clientCertAuth),
      peerCreds: new ReloadableServerCredentials(material, true),
    });
  }

  get enabled(): boolean {
    return this.tls !== undefined;
  }

  /** The node certificate as loaded (undefined without TLS), for logs. */
  get summary(): TlsMaterial['summary'] | undefined {
    return this.tls?.material.summary;
  }

  serverCredentials(listener: 'client' | 'peer'): grpc.ServerCredentials {
    if (!this.tls) return grpc.ServerCredentials.createInsecure();
    return listener === 'client' ? this.tls.publicCreds : this.tls.peerCreds;
  }

  /**
   * The HTTPS endpoint's context (undefined without TLS): the node certificate, and the CA that
   * client certificates are checked against (observe/http-access.ts decides per path).
   */
  httpsContext(): SecureContextOptions | undefined {
    const m = this.tls?.material;
    return m && { cert: m.cert, key: m.key, ca: m.ca };
  }

  /** Call `listener` after each successful reload (the HTTPS server swaps its context); returns the unsubscribe. */
  onReload(listener: () => void): () => void {
    this.reloadListeners.add(listener);
    return () => this.reloadListeners.delete(listener);
  }

  /** Credentials to dial member `peerId`'s peer port: the server must prove it is that member. */
  peerChannel(peerId: string): PeerChannel {
    let ch = this.peerChannels.get(peerId);
    if (ch) return ch;
    if (!this.tls) {
      ch = { credentials: grpc.credentials.createInsecure(), options: {} };
    } else {
      const checkServerIdentity = (_host: string, cert: PeerCertificate): Error | undefined => {
        const problem = peerCertProblem(cert, peerId);
        return problem ? new Error(`the server is not member ${peerId}: ${problem}`) : undefined;
      };
      ch = {
        credentials: grpc.experimental.createCertificateProviderChannelCredentials(this.tls.provider, this.tls.provider, { checkServerIdentity }),
        // SNI and the name checked: the member's peer name, not the (possibly proxied) address.
        options: { 'grpc.ssl_target_name_override': peerDnsName(peerId) },
      };
    }
    this.peerChannels.set(peerId, ch);
    return ch;
  }

  /** Why the caller of a peer-port call may not act as member `claimedId` (undefined if it may). */
  peerCallerProblem(call: AuthenticatedCall, claimedId: string): string | undefined {
    if (!this.tls) return undefined;
    return peerCertProblem(call.getAuthContext().sslPeerCertificate, claimedId);
  }

  /**
   * The principal of a public-port call (principal.ts): the verified client certificate's CN with
   * --client-cert-auth, else anonymous; `problem` when a certificate names no usable principal.
   */
  clientPrincipal(call: AuthenticatedCall): { principal: string } | { problem: string } {
    if (!this.tls?.clientCertAuth) return { principal: ANONYMOUS };
    return certificatePrincipal(call.getAuthContext().sslPeerCertificate);
  }

  /**
   * Re-read the TLS files (SIGHUP). New connections use the new certificates; open ones are left
   * alone. Unusable files change nothing (the error says why).
   */
  reload(): { changed: boolean; summary?: TlsMaterial['summary'] } {
    if (!this.tls) return { changed: false };
    const material = loadTlsMaterial(this.tls.config, this.tls.id);
    this.tls.material = material;
    this.tls.publicCreds.update(material);
    this.tls.peerCreds.update(material);
    this.tls.provider.update(material);
    for (const l of this.reloadListeners) l();
    return { changed: true, summary: material.summary };
  }
}
