// Package tokenmac names what belongs to a secret without telling anything of it: a MAC
// keyed by the secret (a token, a password) over a label. Whoever lacks the secret can
// neither compute the name nor learn the secret from it. The GitHub command names each
// token's ETag cache with it, and the module its release-level cache volumes (internal/trust).
package tokenmac

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// Of is the first n bytes (at most 32) of HMAC-SHA256 of label keyed by token, in hex.
func Of(token, label string, n int) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte(label))
	return hex.EncodeToString(m.Sum(nil)[:min(max(n, 0), sha256.Size)])
}
