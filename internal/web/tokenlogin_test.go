package web

import (
	"net/http"
	"strings"
	"testing"
)

// The login URL serve -http prints at start carries the server's bearer
// token: it logs a browser in every time (as Jupyter's does), and a wrong
// token or a server without one logs nobody in.
func TestLogin_BearerTokenURL(t *testing.T) {
	srv, _ := newServer(t, "sekrit")
	for i := range 2 {
		c := noRedirect()
		code, _, hdr := do(t, c, "GET", srv.URL+LoginPath+"?t=sekrit", nil)
		if code != http.StatusSeeOther || hdr.Get("Location") != "/" || !strings.Contains(hdr.Get("Set-Cookie"), "HttpOnly") {
			t.Fatalf("use %d: %d to %q cookie %q, want 303 to / with a cookie", i+1, code, hdr.Get("Location"), hdr.Get("Set-Cookie"))
		}
		if code, body, _ := do(t, c, "GET", srv.URL+"/v1/sessions", nil); code != 200 || body != "console /v1/sessions" {
			t.Fatalf("use %d: console with the cookie: %d %q", i+1, code, trim(body))
		}
	}
	open, _ := newServer(t, "")
	for name, u := range map[string]string{"wrong token": srv.URL + LoginPath + "?t=nope", "empty token": srv.URL + LoginPath + "?t=",
		"no token on the server": open.URL + LoginPath + "?t="} {
		if code, _, hdr := do(t, noRedirect(), "GET", u, nil); code != 401 || hdr.Get("Set-Cookie") != "" {
			t.Errorf("%s: %d cookie %q, want 401 and none", name, code, hdr.Get("Set-Cookie"))
		}
	}
}
