package httpserver

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// requireToken lets a request through only with "Authorization: Bearer
// <token>", decided from the headers: a refused request's body is never
// read, and its connection is closed (refuse). An empty token disables the check (loopback only; New enforces
// that). Both sides are hashed first so the comparison takes the same time
// whatever the length or content of the guess.
func requireToken(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			unauthorized(w, "401 Unauthorized: this agentty server needs a bearer token; send the header 'Authorization: Bearer <token>' with the token it was started with (-token-file or AGENTTY_TOKEN)")
			return
		}
		have := sha256.Sum256([]byte(strings.TrimSpace(got)))
		if subtle.ConstantTimeCompare(have[:], want[:]) != 1 {
			unauthorized(w, "401 Unauthorized: the bearer token is wrong; use the token this agentty server was started with (-token-file or AGENTTY_TOKEN)")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func unauthorized(w http.ResponseWriter, msg string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="agentty"`)
	refuse(w, http.StatusUnauthorized, msg)
}
