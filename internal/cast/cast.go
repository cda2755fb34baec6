// Package cast writes a session's transcript as an asciicast v2 recording
// (https://docs.asciinema.org/manual/asciicast/v2/), playable by asciinema
// and by the web view's player, or as its plain text.
//
// The recording is built from the transcript store's records: output chunks
// become "o" events at the time they were stored, inputs "i" events (a
// redacted input, typed at a password prompt, has no content to write and
// is left out), resizes "r" events. Times are seconds since the session
// started and never go backwards. A multi-byte UTF-8 character split
// between two chunks is carried to the next event, so the events' data
// concatenated is exactly the output bytes.
package cast

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"
	"unicode/utf8"
)

// Record is one entry of a transcript, oldest first.
type Record struct {
	Time       time.Time
	Kind       Kind
	Data       []byte // output or input bytes
	Rows, Cols int    // Resize: the new size
}

// Kind is what a Record holds.
type Kind uint8

// Kinds.
const (
	Output Kind = iota
	Input
	Resize
)

// Recording is a session's transcript: its start, then its records.
type Recording struct {
	Command    string
	Started    time.Time
	Rows, Cols int // the terminal size at the start; 0: 80x24
	// Each calls visit with every record in order, stopping at the first
	// error, which it returns.
	Each func(visit func(Record) error) error
}

// header is the first line of an asciicast v2 file.
type header struct {
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp int64             `json:"timestamp"`
	Command   string            `json:"command,omitempty"`
	Title     string            `json:"title,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
}

// WriteCast writes rec as asciicast v2.
func WriteCast(w io.Writer, rec Recording) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	rows, cols := rec.Rows, rec.Cols
	if rows <= 0 || cols <= 0 {
		rows, cols = 24, 80
	}
	// Output is full of < and >: JSON's HTML escapes would only make it
	// unreadable.
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(header{Version: 2, Width: cols, Height: rows, Timestamp: rec.Started.Unix(),
		Command: rec.Command, Title: rec.Command, Env: map[string]string{"TERM": "xterm-256color"}}); err != nil {
		return err
	}
	e := &events{enc: enc, start: rec.Started}
	if err := rec.Each(e.record); err != nil {
		return err
	}
	if len(e.carry) > 0 { // output ended inside a character: write it as it is
		e.write(e.lastT, "o", string(e.carry))
	}
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

// events writes event lines; its fields belong to one WriteCast call.
type events struct {
	enc   *json.Encoder
	start time.Time
	last  float64 // seconds of the last event: times never go backwards
	lastT time.Time
	carry []byte // the start of a UTF-8 character the last output chunk ended in
	err   error
}

func (e *events) record(r Record) error {
	e.lastT = r.Time
	switch r.Kind {
	case Output:
		data := append(e.carry, r.Data...)
		n := completeUTF8(data)
		e.carry = append([]byte(nil), data[n:]...)
		if n > 0 {
			e.write(r.Time, "o", string(data[:n]))
		}
	case Input:
		e.write(r.Time, "i", string(r.Data))
	case Resize:
		e.write(r.Time, "r", fmt.Sprintf("%dx%d", r.Cols, r.Rows))
	}
	return e.err
}

func (e *events) write(t time.Time, code, data string) {
	if e.err != nil {
		return
	}
	sec := max(t.Sub(e.start).Seconds(), e.last, 0)
	e.last = sec
	e.err = e.enc.Encode([]any{json.Number(fmt.Sprintf("%.6f", sec)), code, data})
}

// completeUTF8 is the length of p without a trailing incomplete UTF-8
// sequence (at most 3 bytes; anything else invalid stays and is written
// as the replacement character).
func completeUTF8(p []byte) int {
	for i := 1; i <= 3 && i <= len(p); i++ {
		b := p[len(p)-i]
		if utf8.RuneStart(b) {
			if !utf8.FullRune(p[len(p)-i:]) {
				return len(p) - i
			}
			break
		}
	}
	return len(p)
}
