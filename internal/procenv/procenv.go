// Package procenv builds what a child process starts with: its environment
// (agentty's own, layered with defaults, the caller's variables and the
// session marker) and the executable a name resolves to, the way execve
// callers search PATH. Sessions and one-shot runs share it so both find
// and describe programs the same way.
package procenv

import (
	"os"
	"runtime"
	"slices"
	"strings"
)

// foldNames: environment names are case-insensitive on Windows (Path and
// PATH are one variable), case-sensitive elsewhere.
const foldNames = runtime.GOOS == "windows"

// Current returns this process's environment as a map, for layering.
func Current() map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

// List renders env as KEY=VALUE entries sorted by key, so a child's
// environment is the same for the same inputs.
func List(env map[string]string) []string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, k+"="+env[k])
	}
	return out
}

// Get returns key's value in a KEY=VALUE list, "" when absent (on
// Windows the name matches in any case).
func Get(env []string, key string) string { return get(env, key, foldNames) }

func get(env []string, key string, fold bool) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && (k == key || fold && strings.EqualFold(k, key)) {
			return v
		}
	}
	return ""
}

// Set sets env[key] to value. On Windows it first drops a variable whose
// name differs only in case, so the caller's PATH replaces the inherited
// Path instead of standing beside it (a child would get one of the two,
// whichever Windows met first).
func Set(env map[string]string, key, value string) { set(env, key, value, foldNames) }

func set(env map[string]string, key, value string, fold bool) {
	if fold {
		drop(env, key)
	}
	env[key] = value
}

// Delete removes key from env, on Windows in any case.
func Delete(env map[string]string, key string) {
	if foldNames {
		drop(env, key)
	}
	delete(env, key)
}

// drop removes every name equal to key but for case.
func drop(env map[string]string, key string) {
	for k := range env {
		if strings.EqualFold(k, key) {
			delete(env, k)
		}
	}
}
