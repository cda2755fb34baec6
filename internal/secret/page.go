package secret

import (
	"crypto/subtle"
	"html/template"
	"net/http"
	"strings"
)

// maxSecret bounds what a POST may carry: a password, not a file.
const maxSecret = 64 << 10

var pageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>agentty: a program asks for a secret</title>
<style>body{font:16px system-ui,sans-serif;max-width:40em;margin:2em auto;padding:0 1em}
pre{background:#f4f4f4;padding:.5em;white-space:pre-wrap;word-break:break-all}input[type=password]{width:100%;font-size:1.1em;padding:.3em}
button{font-size:1em;margin:.8em .5em 0 0;padding:.3em 1em}</style></head>
<body><h1>A program asks for a secret</h1>
<p>Session <b>{{.Session}}</b> runs:</p><pre>{{.Command}}</pre>
<p>and prints:</p><pre>{{.Prompt}}</pre>
<p>What you type here goes to that terminal followed by Enter. The agent does not see it.</p>
<form method="post" autocomplete="off">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<input type="password" name="secret" autofocus aria-label="secret">
<button type="submit" name="action" value="send">Send</button><button type="submit" name="action" value="decline">Decline</button>
</form></body></html>
`))

var doneTmpl = template.Must(template.New("done").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>agentty</title></head><body><p>{{.}}</p><p>You can close this page.</p></body></html>
`))

// handler serves GET and POST on /secret/{token}.
func (p *Pages) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/secret/{token}", p.serve)
	return mux
}

func headers(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	// same-origin, not no-referrer: under no-referrer browsers send
	// "Origin: null" with the form's POST, which post must refuse. The
	// token in the URL still never leaves for another site.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
}

func (p *Pages) serve(w http.ResponseWriter, r *http.Request) {
	headers(w)
	pg := p.page(r.PathValue("token"))
	if pg == nil {
		// Unknown, used and expired tokens look the same: nothing to learn.
		http.Error(w, "410 Gone: this link was used, has expired or never existed; ask the agent to ask again", http.StatusGone)
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = pageTmpl.Execute(w, struct {
			Info
			CSRF string
		}{pg.Info, pg.csrf})
	case http.MethodPost:
		p.post(w, r, pg)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "405 Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

func (p *Pages) post(w http.ResponseWriter, r *http.Request, pg *Page) {
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		http.Error(w, "403 Forbidden: the form was posted from another site", http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxSecret)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "400 Bad Request: the form could not be read", http.StatusBadRequest)
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(pg.csrf)) != 1 {
		http.Error(w, "403 Forbidden: the form's token is missing or wrong; reload the page", http.StatusForbidden)
		return
	}
	msg := "Sent. The program has your answer."
	if r.PostForm.Get("action") == "decline" {
		if !pg.finish(nil, ErrDeclined) {
			msg = "This page was already answered."
		} else {
			msg = "Declined. The agent is told you did not answer."
		}
	} else {
		// A line ending would submit early or type a second line.
		s := strings.TrimRight(r.PostForm.Get("secret"), "\r\n")
		if strings.ContainsAny(s, "\r\n") {
			http.Error(w, "400 Bad Request: the secret must be one line", http.StatusBadRequest)
			return
		}
		if !pg.finish([]byte(s), nil) {
			msg = "This page was already answered."
		}
		r.PostForm.Del("secret")
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = doneTmpl.Execute(w, msg)
}
