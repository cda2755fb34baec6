package sshbackend

import (
	"bytes"
	"io"
	"strconv"
	"strings"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/outlog"
)

// pumpHeader passes output to sink, except the wrapper's pid line, whose
// pid it sends on pidc (closed without a value if the stream ends first).
func (p *process) pumpHeader(r io.Reader, sink backend.Sink, pidc chan<- int, early *bytes.Buffer) {
	buf := make([]byte, 32<<10)
	var head []byte
	found := false
	defer func() {
		if !found {
			close(pidc)
		}
	}()
	for {
		n, err := r.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if !found {
				head = append(head, chunk...)
				i := bytes.Index(head, []byte(pidTag))
				j := -1
				if i >= 0 {
					j = bytes.IndexByte(head[i:], '\n')
				}
				if j < 0 {
					if i < 0 && len(head) > len(pidTag) {
						// Login noise before the tag; keep the tail that
						// may hold the start of the tag.
						keep := len(pidTag) - 1
						early.Write(head[:len(head)-keep])
						sink(outlog.Stdout, head[:len(head)-keep])
						head = append(head[:0], head[len(head)-keep:]...)
					}
					if err != nil {
						early.Write(head)
						return
					}
					continue
				}
				line := strings.TrimRight(string(head[i+len(pidTag):i+j]), "\r")
				pid, perr := strconv.Atoi(line)
				if perr != nil || pid <= 0 {
					early.Write(head)
					return
				}
				if i > 0 {
					early.Write(head[:i])
					sink(outlog.Stdout, head[:i])
				}
				found = true
				pidc <- pid
				chunk = head[i+j+1:]
			}
			if len(chunk) > 0 {
				sink(outlog.Stdout, chunk)
			}
		}
		if err != nil {
			return
		}
	}
}

// pumpStream copies a stream to sink until EOF. The channel buffers what
// the server sends, so the program never waits on agentty's readers.
func pumpStream(r io.Reader, s outlog.Stream, sink backend.Sink) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			sink(s, buf[:n])
		}
		if err != nil {
			return
		}
	}
}
