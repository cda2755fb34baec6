package api

import "time"

// WebLoginPath issues a one-time login URL for the web view (POST): on the
// daemon's socket to its user, over HTTP to a client with the bearer token.
const WebLoginPath = "/v1/web/login"

// WebLogin is what WebLoginPath answers.
type WebLogin struct {
	URL     string    `json:"url"`  // the one-time login URL to open
	Path    string    `json:"path"` // the same without scheme and host
	Expires time.Time `json:"expires"`
}
