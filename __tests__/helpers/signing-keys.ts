import { generateKeyPairSync } from 'node:crypto';
import { keyIdOf } from '../../src/rules/model/signing';

/** An Ed25519 key pair as an operator would configure it: PEM and base64 DER of each half, and the key id. */
export interface TestKeyPair {
  privatePem: string;
  privateBase64: string;
  publicPem: string;
  publicBase64: string;
  keyId: string;
}

/** A fresh Ed25519 key pair (`openssl genpkey -algorithm ed25519` gives the same PKCS#8 PEM). */
export function testKeyPair(): TestKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    privateBase64: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    publicPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    publicBase64: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
    keyId: keyIdOf(publicKey),
  };
}
