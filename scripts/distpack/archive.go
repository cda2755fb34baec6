package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// entry is one file of an archive: its name inside, where it comes from.
type entry struct{ name, src string }

// writeArchive writes entries, in the order given, to a .tar.gz or .zip
// at path. Modes come from the source files (the binaries are 0755);
// owner and time are fixed so that the same binaries give the same bytes.
func writeArchive(path string, entries []entry, mtime time.Time) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	if strings.HasSuffix(path, ".zip") {
		return writeZip(f, entries, mtime)
	}
	return writeTarGz(f, entries, mtime)
}

func writeTarGz(w io.Writer, entries []entry, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		fi, err := os.Stat(e.src)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: e.name, Mode: int64(fi.Mode().Perm()), Size: fi.Size(),
			ModTime: mtime, Typeflag: tar.TypeReg, Uname: "root", Gname: "root", Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if err := copyFile(tw, e.src); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, entries []entry, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, e := range entries {
		fi, err := os.Stat(e.src)
		if err != nil {
			return err
		}
		hdr, err := zip.FileInfoHeader(fi)
		if err != nil {
			return err
		}
		hdr.Name, hdr.Method, hdr.Modified = e.name, zip.Deflate, mtime
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if err := copyFile(fw, e.src); err != nil {
			return err
		}
	}
	return zw.Close()
}

func copyFile(w io.Writer, src string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// install copies src to dst (creating its directory) with mode.
func install(src, dst string, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.WriteFile(dst, b, mode); err != nil {
		return err
	}
	return os.Chmod(dst, mode) // WriteFile's mode is masked by the umask
}
