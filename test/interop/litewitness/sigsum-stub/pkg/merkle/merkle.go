// Package merkle is the part of sigsum-go's pkg/merkle that witnessctl uses: the root of the
// empty tree is SHA-256 of the empty string (RFC 6962, 2.1).
package merkle

import "sigsum.org/sigsum-go/pkg/crypto"

func HashEmptyTree() crypto.Hash { return crypto.HashBytes(nil) }
