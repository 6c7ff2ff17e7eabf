// Certificates that can change under running listeners and channels (SIGHUP). The server side is a
// grpc.ServerCredentials whose secure context is replaced in place (grpc-js calls the http2
// server's setSecureContext); the client side is a grpc-js CertificateProvider, read by every new
// connection of a channel. Connections already open keep the context they were made with.
import * as grpc from '@grpc/grpc-js';
import type { SecureServerOptions } from 'node:http2';
import type { SecureContextOptions } from 'node:tls';
import type { TlsMaterial } from './tls-material.js';

type CaListener = (u: { caCertificate: Buffer } | null) => void;
type IdentityListener = (u: { certificate: Buffer; privateKey: Buffer } | null) => void;

/** Server credentials whose certificates update(); `requireClientCert` asks for and verifies client certificates. */
export class ReloadableServerCredentials extends grpc.ServerCredentials {
  constructor(
    material: TlsMaterial,
    private readonly requireClientCert: boolean,
  ) {
    const ctor: SecureServerOptions = { requestCert: requireClientCert, rejectUnauthorized: requireClientCert };
    super(ctor, ReloadableServerCredentials.context(material, requireClientCert));
  }

  private static context(m: TlsMaterial, withCa: boolean): SecureContextOptions {
    return { cert: m.cert, key: m.key, ...(withCa ? { ca: m.ca } : {}) };
  }

  update(material: TlsMaterial): void {
    this.updateSecureContextOptions(ReloadableServerCredentials.context(material, this.requireClientCert));
  }

  _equals(other: grpc.ServerCredentials): boolean {
    return other === this;
  }
}

/** The node's CA and identity for outbound channels (grpc.experimental.CertificateProvider). */
export class ReloadableCertificateProvider implements grpc.experimental.CertificateProvider {
  private readonly caListeners = new Set<CaListener>();
  private readonly identityListeners = new Set<IdentityListener>();

  constructor(private material: TlsMaterial) {}

  update(material: TlsMaterial): void {
    this.material = material;
    for (const l of this.caListeners) l({ caCertificate: material.ca });
    for (const l of this.identityListeners) l({ certificate: material.cert, privateKey: material.key });
  }

  addCaCertificateListener(listener: CaListener): void {
    this.caListeners.add(listener);
    listener({ caCertificate: this.material.ca });
  }

  removeCaCertificateListener(listener: CaListener): void {
    this.caListeners.delete(listener);
  }

  addIdentityCertificateListener(listener: IdentityListener): void {
    this.identityListeners.add(listener);
    listener({ certificate: this.material.cert, privateKey: this.material.key });
  }

  removeIdentityCertificateListener(listener: IdentityListener): void {
    this.identityListeners.delete(listener);
  }
}
