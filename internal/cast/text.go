package cast

import (
	"bufio"
	"bytes"
	"io"

	"github.com/agentty/agentty/internal/termtext"
)

// WriteText writes rec's output as plain text: escape sequences removed,
// carriage-return overwrites applied, as read_output shows it.
func WriteText(w io.Writer, rec Recording) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var c Cleaner
	err := rec.Each(func(r Record) error {
		if r.Kind != Output {
			return nil
		}
		_, err := bw.WriteString(c.Lines(r.Data))
		return err
	})
	if err != nil {
		return err
	}
	bw.WriteString(c.Rest())
	return bw.Flush()
}

// Cleaner turns output arriving in pieces into clean text line by line:
// a line is cleaned once it is complete, so a redraw of it (a prompt
// written again after "\r") collapses wherever the pieces were cut.
type Cleaner struct {
	pending []byte // the unfinished line
}

// Lines adds p and returns the clean text of the lines it completed.
func (c *Cleaner) Lines(p []byte) string {
	c.pending = append(c.pending, p...)
	i := bytes.LastIndexByte(c.pending, '\n')
	if i < 0 {
		return ""
	}
	text, n := termtext.Clean(c.pending[:i+1], false)
	c.pending = append(c.pending[:0], c.pending[n:]...)
	return text
}

// Partial is the clean text of the unfinished line, which stays pending.
func (c *Cleaner) Partial() string {
	text, _ := termtext.Clean(c.pending, true)
	return text
}

// Rest returns the clean text of the unfinished line and forgets it.
func (c *Cleaner) Rest() string {
	text := c.Partial()
	c.pending = c.pending[:0]
	return text
}
