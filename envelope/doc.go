// Package envelope holds XGR's sealed data: XGR1 envelopes (content under a
// random data key), XGRK2 wrapped data keys (the data key sealed for one
// reader's P-256 read key) and the read keys themselves, as the public XGR
// encryption reference (docs/xgr_encryptionGrants.md of xgr-network/XGR,
// version 2) defines them.
//
// The suite:
//
//   - DEK: 32 random bytes.
//   - XGR1 content: "XGR1.AESGCM256.<rid>.<body>", body the standard,
//     padded base64 of nonce(12) ‖ ciphertext ‖ tag(16), AES-256-GCM under
//     the DEK without associated data; rid is "0x" and 64 lowercase hex
//     digits of RID = SHA-256(nonce ‖ ciphertext), the tag not included.
//     A blob whose rid is not the hash of its body is refused.
//   - XGRK2 wrapped DEK: "XGRK2.P256HKDFGCM.<hex>", hex of
//     writerPub(65, SEC1 uncompressed ephemeral key) ‖ salt(16) ‖ iv(12) ‖
//     ct(32) ‖ tag(16), 141 bytes: ECDH(ephemeral, reader) on P-256, the
//     x coordinate through HKDF-SHA256 with the salt and
//     info "XGR|v=2|scope=<S>|rid=<64 lowercase hex>" gives a 32-byte KEK
//     that seals the DEK with AES-256-GCM (no associated data).
//   - Scopes: 1 rules (XRC-137 documents), 2 logs (log bundles). A key
//     wrapped for one scope or RID does not open under another.
//   - Read keys: P-256; the public key is the 65-byte uncompressed SEC1 key
//     registered on chain (XRC-563). Files hold the private key as PEM
//     PKCS#8 ("PRIVATE KEY").
//
// Every parser bounds its input before allocating and names the part that
// is wrong; no error carries plaintext, data keys or private keys. The
// package is pure apart from crypto/rand and the read-key file functions.
package envelope
