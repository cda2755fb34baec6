package sshbackend

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentty/agentty/internal/ports"
)

// Listening implements backend.Process: the remote helper lists the socket
// descriptors of the program's tree and the rows of the remote socket
// tables that hold them (request L); ports decodes them as it does locally.
// Without the helper (not Linux) sockets cannot be listed.
func (p *process) Listening() ([]ports.Socket, error) {
	h, err := p.conn.helperFor()
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", ports.ErrUnsupported, p.Host())
	}
	ans, err := h.request("L %d", p.pid)
	if err != nil {
		return nil, err
	}
	return parseListening(ans, byteOrder(h.Arch))
}

// byteOrder is how a machine of arch stores the socket tables' addresses.
func byteOrder(arch string) binary.ByteOrder {
	switch arch {
	case "s390x", "ppc64", "ppc", "mips", "mips64", "sparc64":
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// parseListening decodes the helper's answer to L.
func parseListening(ans string, order binary.ByteOrder) ([]ports.Socket, error) {
	rest, ok := strings.CutPrefix(ans, "ok")
	if !ok {
		return nil, fmt.Errorf("remote helper: %s", ans)
	}
	word := func() string {
		rest = strings.TrimLeft(rest, " ")
		w, r, _ := strings.Cut(rest, " ")
		rest = " " + r
		if r == "" {
			rest = ""
		}
		return w
	}
	str := func(n string) string { // a length-prefixed string
		k, _ := strconv.Atoi(n)
		rest = strings.TrimPrefix(rest, " ")
		k = max(0, min(k, len(rest)))
		s := rest[:k]
		rest = rest[k:]
		return s
	}
	held := map[uint64]ports.Owner{}
	tables := map[string]*bytes.Buffer{}
	row := func(t string) *bytes.Buffer {
		if tables[t] == nil {
			tables[t] = bytes.NewBufferString("header\n")
		}
		return tables[t]
	}
	var cur ports.Owner
	for strings.TrimSpace(rest) != "" {
		switch k := word(); k {
		case "p":
			cur.PID, _ = strconv.Atoi(word())
			cur.Command = str(word())
		case "i":
			ino, _ := strconv.ParseUint(word(), 10, 64)
			if prev, ok := held[ino]; !ok || cur.PID < prev.PID {
				held[ino] = cur
			}
		case "n":
			t, local, st, ino := word(), word(), word(), word()
			fmt.Fprintf(row(t), "0: %s 0 %s 0 0 0 0 0 %s\n", local, st, ino)
		case "u":
			flags, typ, st, ino := word(), word(), word(), word()
			fmt.Fprintf(row("unix"), "0: 0 0 %s %s %s %s %s\n", flags, typ, st, ino, str(word()))
		default:
			return nil, fmt.Errorf("remote helper: unexpected %q in the socket list", k)
		}
	}
	owner := func(ino uint64) (ports.Owner, bool) { o, ok := held[ino]; return o, ok }
	var out []ports.Socket
	for _, t := range ports.Tables {
		if b := tables[t]; b != nil {
			out = append(out, ports.Parse(t, b.Bytes(), order, owner)...)
		}
	}
	return ports.Sort(out), nil
}
