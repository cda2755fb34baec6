package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// maxOpenSegments bounds the segment files the writer keeps open; beyond
// it they are closed and reopened on the next write.
const maxOpenSegments = 128

// segment is the file a session's output is appended to now.
type segment struct {
	f    *os.File // nil when closed to save descriptors
	n    int64    // segment number: files are <dir>/segments/<sid>/<n>.seg
	size int64
}

func (s *Store) segDir(sid string) string {
	return filepath.Join(filepath.Dir(s.path), "segments", sid)
}

func (s *Store) segPath(sid string, n int64) string {
	return filepath.Join(s.segDir(sid), strconv.FormatInt(n, 10)+".seg")
}

// appendSegment writes parts, one record's bytes, at the end of sid's
// current segment file and returns where they went. Writer goroutine only.
func (s *Store) appendSegment(sid string, parts [][]byte) (n, pos int64, err error) {
	g := s.segs[sid]
	if g == nil {
		g = &segment{n: -1}
		if err := s.lastSegment(sid, g); err != nil {
			return 0, 0, err
		}
		if len(s.segs) >= maxOpenSegments {
			s.closeSegments("")
		}
		s.segs[sid] = g
	}
	if g.n < 0 || g.size >= segmentSize {
		if g.f != nil {
			g.f.Close()
			g.f = nil
		}
		g.n++
		g.size = 0
	}
	if g.f == nil {
		if err := os.MkdirAll(s.segDir(sid), 0o700); err != nil {
			return 0, 0, err
		}
		f, err := os.OpenFile(s.segPath(sid, g.n), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return 0, 0, err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return 0, 0, err
		}
		g.f, g.size = f, fi.Size()
	}
	pos = g.size
	w, err := writeParts(g.f, parts)
	g.size += w
	if err != nil {
		return 0, 0, fmt.Errorf("append to segment %s: %w", s.segPath(sid, g.n), err)
	}
	return g.n, pos, nil
}

// lastSegment finds the newest segment a session already has (after a
// segment map reset); g.n stays -1 when there is none.
func (s *Store) lastSegment(sid string, g *segment) error {
	entries, err := os.ReadDir(s.segDir(sid))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if n, ok := segNumber(e.Name()); ok && n > g.n {
			g.n = n
		}
	}
	return nil
}

func segNumber(name string) (int64, bool) {
	base, ok := strings.CutSuffix(name, ".seg")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(base, 10, 64)
	return n, err == nil
}

// closeSegments closes sid's segment file, or every one when sid is "".
// Writer goroutine only (or after it stopped).
func (s *Store) closeSegments(sid string) {
	for id, g := range s.segs {
		if sid != "" && id != sid {
			continue
		}
		if g.f != nil {
			g.f.Close()
		}
		delete(s.segs, id)
	}
}

// removeSegmentsBefore deletes sid's segment files numbered below n.
func (s *Store) removeSegmentsBefore(sid string, n int64) error {
	entries, err := os.ReadDir(s.segDir(sid))
	if err != nil {
		return err
	}
	for _, e := range entries {
		if k, ok := segNumber(e.Name()); ok && k < n {
			if err := os.Remove(s.segPath(sid, k)); err != nil {
				return err
			}
		}
	}
	return nil
}

// segReader reads output chunks back from segment files, keeping the
// files it opened until close.
type segReader struct {
	s     *Store
	sid   string
	files map[int64]*os.File
}

func (s *Store) segReader(sid string) *segReader {
	return &segReader{s: s, sid: sid, files: map[int64]*os.File{}}
}

// read returns size bytes at pos of segment n.
func (r *segReader) read(n, pos, size int64) ([]byte, error) {
	f := r.files[n]
	if f == nil {
		var err error
		f, err = os.Open(r.s.segPath(r.sid, n))
		if err != nil {
			return nil, err
		}
		r.files[n] = f
	}
	buf := make([]byte, size)
	if _, err := f.ReadAt(buf, pos); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("segment %d of %s ends before %d+%d: %w", n, r.sid, pos, size, io.ErrUnexpectedEOF)
		}
		return nil, err
	}
	return buf, nil
}

func (r *segReader) close() {
	for _, f := range r.files {
		f.Close()
	}
}
