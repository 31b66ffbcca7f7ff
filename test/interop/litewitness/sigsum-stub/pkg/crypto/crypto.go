// Package crypto is the part of sigsum-go's pkg/crypto that witnessctl uses, defined as sigsum-go
// defines it: a hash is SHA-256, a public key is an Ed25519 public key.
package crypto

import "crypto/sha256"

const (
	HashSize      = sha256.Size
	PublicKeySize = 32
)

type (
	Hash      [HashSize]byte
	PublicKey [PublicKeySize]byte
)

func HashBytes(b []byte) Hash { return sha256.Sum256(b) }
