package main

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestDataDirFor_Platforms(t *testing.T) {
	abs := func(parts ...string) string {
		return filepath.Join(append([]string{string(filepath.Separator)}, parts...)...)
	}
	home := func() (string, error) { return abs("home", "u"), nil }
	noHome := func() (string, error) { return "", errors.New("no home") }
	for _, tc := range []struct {
		name string
		goos string
		env  map[string]string
		home func() (string, error)
		want string
	}{
		{"linux default", "linux", nil, home, abs("home", "u", ".local", "state", "agentty")},
		{"XDG_STATE_HOME", "linux", map[string]string{"XDG_STATE_HOME": abs("st")}, home, abs("st", "agentty")},
		{"relative XDG_STATE_HOME is ignored", "darwin", map[string]string{"XDG_STATE_HOME": "st"}, home, abs("home", "u", ".local", "state", "agentty")},
		{"windows LOCALAPPDATA", "windows", map[string]string{"LOCALAPPDATA": abs("lad")}, home, abs("lad", "agentty", "state")},
		{"windows XDG_STATE_HOME first", "windows", map[string]string{"XDG_STATE_HOME": abs("st"), "LOCALAPPDATA": abs("lad")}, home, abs("st", "agentty")},
		{"LOCALAPPDATA only on windows", "linux", map[string]string{"LOCALAPPDATA": abs("lad")}, home, abs("home", "u", ".local", "state", "agentty")},
		{"no home", "linux", nil, noHome, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := dataDirFor(tc.goos, func(k string) string { return tc.env[k] }, tc.home)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("got %q, want an error naming --data-dir", got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("dataDirFor(%s) = %q, %v; want %q", tc.goos, got, err, tc.want)
			}
		})
	}
}
