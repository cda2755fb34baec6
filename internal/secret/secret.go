// Package secret lets a person type a secret (a password, a passphrase)
// into a terminal session without it passing through the agent: agentty
// opens a one-time page on a loopback address, the MCP client opens it for
// the person (URL-mode elicitation), and what they type there is handed to
// the waiting caller, which writes it to the terminal.
//
// A page is reachable only with its URL token (256 random bits), answers
// one POST (which must carry the page's CSRF token and, when the browser
// sends one, this server's Origin), and expires after a few minutes.
// Secrets are never logged; Page.Wait hands them over as bytes the caller
// clears after use.
package secret

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/agentty/agentty/internal/hostcheck"
)

// DefaultTTL is how long a page stays answerable.
const DefaultTTL = 5 * time.Minute

// Errors of Page.Wait.
var (
	ErrDeclined = errors.New("the person declined to enter the secret")
	ErrExpired  = errors.New("the secret page expired before the person answered")
	ErrClosed   = errors.New("the secret page was withdrawn")
)

// Info is what a page tells the person about who asks.
type Info struct {
	Session string // session id
	Command string // the session's command line
	Prompt  string // the prompt the program printed, e.g. "Password: "
}

// Options configure Pages; the zero value is usable.
type Options struct {
	TTL    time.Duration // 0: DefaultTTL
	Logger *slog.Logger
	// Addr is the loopback address to listen on; "" means 127.0.0.1:0.
	Addr string
}

// Pages serves one-time secret pages on a loopback listener it opens on
// first use. Close stops it and withdraws every open page.
type Pages struct {
	ttl time.Duration
	log *slog.Logger
	adr string

	mu     sync.Mutex
	ln     net.Listener     // guarded by mu; nil until the first page
	srv    *http.Server     // guarded by mu
	served chan struct{}    // closed when srv.Serve returned
	pages  map[string]*Page // by URL token; guarded by mu
	byID   map[string]*Page // by elicitation id; guarded by mu
	closed bool             // guarded by mu
	now    func() time.Time // clock; tests move it
}

// New returns Pages that open their listener lazily.
func New(o Options) *Pages {
	p := &Pages{ttl: o.TTL, log: o.Logger, adr: o.Addr, pages: map[string]*Page{}, byID: map[string]*Page{}, now: time.Now}
	if p.ttl <= 0 {
		p.ttl = DefaultTTL
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if p.adr == "" {
		p.adr = "127.0.0.1:0"
	}
	return p
}

// Page is one question for a secret. Its fields are fixed at Open.
type Page struct {
	Info
	// ID names the page to the MCP client (the elicitation id); it is not
	// the URL token and opens nothing.
	ID string
	// URL is the address for the person; it carries the token.
	URL string

	token   string
	csrf    string
	expires time.Time
	owner   *Pages

	once  sync.Once
	done  chan struct{} // closed once answered, declined, expired or withdrawn
	err   error         // set before done closes
	timer *time.Timer   // expiry

	mu     sync.Mutex
	secret []byte // set before done closes, taken by collect; guarded by mu
}

func random() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Open makes a page for info and returns it; its URL is ready to show.
func (p *Pages) Open(info Info) (*Page, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	if p.ln == nil {
		if err := p.listen(); err != nil {
			return nil, err
		}
	}
	pg := &Page{Info: info, ID: random(), token: random(), csrf: random(), expires: p.now().Add(p.ttl), owner: p, done: make(chan struct{})}
	pg.URL = "http://" + p.ln.Addr().String() + "/secret/" + pg.token
	p.pages[pg.token], p.byID[pg.ID] = pg, pg
	// At expiry an unanswered page fails, and an answer nobody collected
	// is dropped.
	pg.timer = time.AfterFunc(p.ttl, func() {
		p.drop(pg)
		pg.finish(nil, ErrExpired)
		Clear(pg.collect())
	})
	return pg, nil
}

// listen opens the loopback listener; mu is held.
func (p *Pages) listen() error {
	ln, err := net.Listen("tcp", p.adr)
	if err != nil {
		return err
	}
	p.ln = ln
	p.srv = &http.Server{Handler: hostcheck.Guard(p.handler()), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		ErrorLog: slog.NewLogLogger(p.log.Handler(), slog.LevelDebug)}
	p.served = make(chan struct{})
	go func() {
		defer close(p.served)
		_ = p.srv.Serve(ln)
	}()
	return nil
}

// Lookup returns the open page with elicitation id id, or nil.
func (p *Pages) Lookup(id string) *Page {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.byID[id]
}

// take returns the page of token, or nil when unknown, used or expired.
func (p *Pages) page(token string) *Page {
	p.mu.Lock()
	defer p.mu.Unlock()
	pg := p.pages[token]
	if pg == nil || !p.now().Before(pg.expires) {
		return nil
	}
	return pg
}

// forget makes pg's token open nothing from now on.
func (p *Pages) forget(pg *Page) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.pages, pg.token)
}

// drop removes pg from Lookup: its answer was collected, or it expired.
func (p *Pages) drop(pg *Page) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.pages, pg.token)
	delete(p.byID, pg.ID)
}

// Close stops the listener and withdraws every open page. Idempotent.
func (p *Pages) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	open := make([]*Page, 0, len(p.byID))
	for _, pg := range p.byID {
		open = append(open, pg)
	}
	srv, served := p.srv, p.served
	p.mu.Unlock()
	for _, pg := range open {
		pg.timer.Stop()
		pg.Withdraw()
		Clear(pg.collect())
	}
	if srv == nil {
		return nil
	}
	err := srv.Close()
	<-served
	return err
}

// finish settles the page once: the secret, or why there is none.
func (pg *Page) finish(secret []byte, err error) bool {
	first := false
	pg.once.Do(func() {
		first = true
		pg.mu.Lock()
		pg.secret = secret
		pg.mu.Unlock()
		pg.err = err
		pg.owner.forget(pg)
		close(pg.done)
	})
	return first
}

// Withdraw closes the page unanswered (the caller gave up).
func (pg *Page) Withdraw() {
	pg.finish(nil, ErrClosed)
	pg.owner.drop(pg)
}

// collect takes the secret out of the page, once.
func (pg *Page) collect() []byte {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	s := pg.secret
	pg.secret = nil
	return s
}

// Outcome is nil when the person sent a secret, else why not; call it
// after Done is closed.
func (pg *Page) Outcome() error { return pg.err }

// Done is closed once the page is settled.
func (pg *Page) Done() <-chan struct{} { return pg.done }

// Wait returns the secret the person typed, or ErrDeclined, ErrExpired,
// ErrClosed or ctx's error. The caller owns the bytes and should clear
// them after use; a second Wait returns ErrClosed. Lookup finds a settled
// page until it expires, so a caller resuming later learns the outcome.
func (pg *Page) Wait(ctx context.Context) ([]byte, error) {
	select {
	case <-pg.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if pg.err != nil {
		return nil, pg.err
	}
	if s := pg.collect(); s != nil {
		return s, nil
	}
	return nil, ErrClosed // collected before, or dropped at expiry
}

// Clear overwrites b, so a secret does not linger in memory longer than
// needed.
func Clear(b []byte) {
	for i := range b {
		b[i] = 0
	}
}
