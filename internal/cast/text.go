package cast

import (
	"bufio"
	"io"

	"github.com/agentty/agentty/internal/termtext"
)

// WriteText writes rec's output as plain text: escape sequences removed,
// carriage-return overwrites applied, as read_output shows it.
func WriteText(w io.Writer, rec Recording) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var pending []byte
	err := rec.Each(func(r Record) error {
		if r.Kind != Output {
			return nil
		}
		pending = append(pending, r.Data...)
		text, n := termtext.Clean(pending, false)
		pending = append(pending[:0], pending[n:]...)
		_, err := bw.WriteString(text)
		return err
	})
	if err != nil {
		return err
	}
	text, _ := termtext.Clean(pending, true)
	bw.WriteString(text)
	return bw.Flush()
}
