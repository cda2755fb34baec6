package outlog

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestMemory_ReadStreams(t *testing.T) {
	m := NewMemory(0)
	m.Append(Stdout, []byte("out1\n"))
	m.Append(Stderr, []byte("err1\n"))
	m.Append(Stdout, []byte("out2\n"))
	cases := []struct {
		mask Stream
		want string
	}{
		{Both, "out1\nerr1\nout2\n"},
		{Stdout, "out1\nout2\n"},
		{Stderr, "err1\n"},
	}
	for _, c := range cases {
		t.Run(c.mask.String(), func(t *testing.T) {
			s := m.Read(0, 0, 0, c.mask)
			if string(s.Data) != c.want || s.Next != 15 || s.LostBytes != 0 {
				t.Fatalf("got %q next=%d lost=%d", s.Data, s.Next, s.LostBytes)
			}
		})
	}
	// A capped read continues exactly where it stopped.
	s := m.Read(0, 0, 7, Both)
	if string(s.Data) != "out1\ner" || s.Next != 7 {
		t.Fatalf("capped: %q next=%d", s.Data, s.Next)
	}
	s = m.Read(s.Next, -1, 0, Stderr)
	if string(s.Data) != "r1\n" || s.Next != 15 {
		t.Fatalf("continued stderr: %q next=%d", s.Data, s.Next)
	}
}

func TestMemory_LinesAcrossBlocks(t *testing.T) {
	m := NewMemory(0)
	var all bytes.Buffer
	for i := 1; i <= 50000; i++ {
		line := fmt.Sprintf("%d\n", i)
		all.WriteString(line)
		m.Append(Stdout, []byte(line))
	}
	st := m.Stats()
	if st.Lines != 50000 || st.End != int64(all.Len()) {
		t.Fatalf("stats %+v", st)
	}
	off := m.OffsetAfterLine(41234)
	want := int64(strings.Index(all.String(), "\n41235\n") + 1)
	if off != want {
		t.Fatalf("OffsetAfterLine = %d want %d", off, want)
	}
	if got := m.LineAt(off); got != 41234 {
		t.Fatalf("LineAt = %d", got)
	}
	s := m.Read(0, 0, 0, Both)
	if !bytes.Equal(s.Data, all.Bytes()) {
		t.Fatal("full read differs")
	}
}

func TestMemory_EvictionReportsLoss(t *testing.T) {
	m := NewMemory(3 * blockSize)
	line := bytes.Repeat([]byte("x"), 99)
	line = append(line, '\n') // 100 bytes a line
	total := 10 * blockSize / 100
	h := sha256.New()
	for range total {
		m.Append(Stdout, line)
	}
	st := m.Stats()
	if st.Retained > 3*blockSize+blockSize || st.Start == 0 {
		t.Fatalf("not evicted: %+v", st)
	}
	s := m.Read(0, 0, 0, Both)
	if s.LostBytes != st.Start || s.LostLines != st.StartLine || s.From != st.Start {
		t.Fatalf("loss %d/%d from %d; stats %+v", s.LostBytes, s.LostLines, s.From, st)
	}
	if st.StartLine != st.Start/100 {
		t.Fatalf("start line %d for start %d", st.StartLine, st.Start)
	}
	h.Write(s.Data)
	if int64(len(s.Data))+s.LostBytes != st.End {
		t.Fatalf("lost+read != end")
	}
	if s2 := m.Read(0, -1, 0, Both); s2.LostLines != -1 {
		t.Fatalf("unknown line must report -1, got %d", s2.LostLines)
	}
}

func TestMemory_ChangedAndClose(t *testing.T) {
	m := NewMemory(0)
	ch := m.Changed()
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.Append(Stdout, []byte("hi"))
	}()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("append did not broadcast")
	}
	<-done
	m.CloseWrite()
	select {
	case <-m.Changed():
	default:
		t.Fatal("closed log must report changed forever")
	}
	m.Append(Stdout, []byte("late"))
	if s := m.Read(0, 0, 0, Both); string(s.Data) != "hi" || !s.EOF {
		t.Fatalf("after close: %q eof=%v", s.Data, s.EOF)
	}
}

func BenchmarkMemory_Append(b *testing.B) {
	m := NewMemory(64 << 20)
	chunk := bytes.Repeat([]byte("0123456789abcdef0123456789abcde\n"), 1024)
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		m.Append(Stdout, chunk)
	}
}

// BenchmarkMemory_Read is a screen feeder catching up on a flood: 4 MiB
// reads of a log filled by 4 KiB PTY reads.
func BenchmarkMemory_Read(b *testing.B) {
	m := NewMemory(16 << 20)
	chunk := bytes.Repeat([]byte("0123456789abcdef0123456789abcde\n"), 128)
	for range (16 << 20) / len(chunk) {
		m.Append(Stdout, chunk)
	}
	b.SetBytes(4 << 20)
	b.ReportAllocs()
	for b.Loop() {
		if s := m.Read(0, 0, 4<<20, Stdout); len(s.Data) != 4<<20 {
			b.Fatalf("read %d bytes", len(s.Data))
		}
	}
}

func TestMemory_LostLinesAtRetainedStart(t *testing.T) {
	m := NewMemory(blockSize)
	line := append(bytes.Repeat([]byte("y"), 99), '\n')
	for range 3 * blockSize / 100 {
		m.Append(Stdout, line)
	}
	st := m.Stats()
	// A caller at line 5 whose lines were evicted learns how many it lost
	// even when it asks from the first retained byte.
	s := m.Read(st.Start, 5, 0, Both)
	if s.LostBytes != 0 || s.LostLines != st.StartLine-5 {
		t.Fatalf("lost %d bytes %d lines, want 0 and %d", s.LostBytes, s.LostLines, st.StartLine-5)
	}
}
