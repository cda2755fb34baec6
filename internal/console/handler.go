package console

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/agentty/agentty/internal/cast"
	"github.com/agentty/agentty/internal/console/api"
	"github.com/agentty/agentty/internal/sigs"
)

// Session is a session on the wire.
type Session = api.Session

func wire(e Entry) Session {
	return Session{ID: e.ID, Name: e.Name, State: string(e.State), Command: e.Command, Host: e.Host, Mode: string(e.Mode),
		Started: e.StartedAt, AgeS: int64(time.Since(e.StartedAt).Seconds()), Holder: e.Holder, ExitCode: e.ExitCode,
		Signal: e.Signal, SignalNumber: signalNumber(e.Signal), Live: e.Live, Rows: e.Rows, Cols: e.Cols, Lines: e.Lines}
}

// signalNumber is the number of the signal named name on this system, 0
// for none or a name it does not know.
func signalNumber(name string) int {
	if name == "" {
		return 0
	}
	n, _ := sigs.Parse(name)
	return int(n)
}

// Options tune a Handler; zero fields take defaults.
type Options struct {
	Logger *slog.Logger
	// KillTimeout bounds a kill request (default 15 s).
	KillTimeout time.Duration
}

// Handler serves the /v1/ routes over an Engine.
type Handler struct {
	eng Engine
	opt Options
	mux *http.ServeMux
}

// New returns the console's handler; mount it at /v1/.
func New(eng Engine, o *Options) *Handler {
	h := &Handler{eng: eng, mux: http.NewServeMux()}
	if o != nil {
		h.opt = *o
	}
	if h.opt.Logger == nil {
		h.opt.Logger = slog.New(slog.DiscardHandler)
	}
	if h.opt.KillTimeout <= 0 {
		h.opt.KillTimeout = 15 * time.Second
	}
	h.mux.HandleFunc("GET /v1/sessions", h.list)
	h.mux.HandleFunc("GET /v1/sessions/{id}", h.get)
	h.mux.HandleFunc("GET /v1/sessions/{id}/log", h.log)
	h.mux.HandleFunc("POST /v1/sessions/{id}/kill", h.kill)
	h.mux.HandleFunc("GET /v1/sessions/{id}/export", h.export)
	h.mux.HandleFunc("GET /v1/sessions/{id}/stream", h.stream)
	h.mux.HandleFunc("GET /v1/search", h.search)
	h.mux.HandleFunc("/v1/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, "no such route: "+r.Method+" "+r.URL.Path+"; see GET /v1/sessions")
	})
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

func (h *Handler) list(w http.ResponseWriter, _ *http.Request) {
	es, err := h.eng.List()
	if err != nil {
		failErr(w, err)
		return
	}
	out := make([]Session, len(es))
	for i, e := range es {
		out[i] = wire(e)
	}
	reply(w, out)
}

func (h *Handler) get(w http.ResponseWriter, r *http.Request) {
	e, err := h.eng.Get(r.PathValue("id"))
	if err != nil {
		failErr(w, err)
		return
	}
	reply(w, wire(e))
}

func (h *Handler) kill(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), h.opt.KillTimeout)
	defer cancel()
	e, err := h.eng.Kill(ctx, r.PathValue("id"))
	if err != nil {
		failErr(w, err)
		return
	}
	reply(w, wire(e))
}

func (h *Handler) export(w http.ResponseWriter, r *http.Request) {
	format := r.URL.Query().Get("format")
	write := cast.WriteCast
	ctype := "application/x-asciicast"
	switch format {
	case "", "cast":
	case "text":
		write, ctype = cast.WriteText, "text/plain; charset=utf-8"
	default:
		fail(w, http.StatusBadRequest, "format is cast or text, not "+format)
		return
	}
	rec, err := h.eng.Recording(r.PathValue("id"))
	if err != nil {
		failErr(w, err)
		return
	}
	w.Header().Set("Content-Type", ctype)
	if err := write(w, rec); err != nil {
		// The status is sent; the client sees a cut body.
		h.opt.Logger.Warn("console export failed", "session", r.PathValue("id"), "err", err)
	}
}

func (h *Handler) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("q") == "" {
		fail(w, http.StatusBadRequest, "q (a regular expression) is required")
		return
	}
	res, err := h.eng.Search(q.Get("q"), q.Get("session_id"))
	if err != nil {
		failErr(w, err)
		return
	}
	if res.Matches == nil {
		res.Matches = []Match{}
	}
	reply(w, res)
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// failErr answers an engine error with its status.
func failErr(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	switch {
	case errors.Is(err, ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, ErrBadArgs):
		status = http.StatusBadRequest
	case errors.Is(err, ErrConflict):
		status = http.StatusConflict
	}
	fail(w, status, err.Error())
}
