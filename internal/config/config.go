// Package config loads agentty's configuration from a TOML file, AGENTTY_*
// environment variables and command-line flags, in that order of
// precedence (a flag beats the environment, which beats the file).
//
// It is generic over a flag.FlagSet: every flag the server defines is
// settable from the file (key = flag name) and the environment
// (AGENTTY_<FLAG_NAME> in upper snake case) with no extra code. Structured
// settings — the [policy] rules, secrets for other subsystems — live only in
// the file, as TOML tables that packages decode with Section.
//
// The configuration is read once at startup; no tool writes it, and its
// directory is protected from commands (see internal/policy).
package config

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"
)

// FlagName is the flag that names the configuration file.
const FlagName = "config"

// EnvPrefix starts every environment variable agentty reads.
const EnvPrefix = "AGENTTY_"

// ErrConfig wraps every configuration error.
var ErrConfig = errors.New("configuration")

// Source says where a flag's value came from.
type Source string

// Sources, lowest precedence first.
const (
	FromDefault Source = "default"
	FromFile    Source = "file"
	FromEnv     Source = "env"
	FromFlag    Source = "flag"
)

// Config is the loaded configuration.
type Config struct {
	// Path is the file that was read; "" when there was none.
	Path string
	// Dir is the configuration directory: the file's directory, or the
	// default location when no file exists. Commands may not touch it.
	Dir string
	// Sources records where each flag's value came from.
	Sources map[string]Source

	md       toml.MetaData
	sections map[string]toml.Primitive
}

// Options adjust Load for tests; nil means the process environment.
type Options struct {
	// Getenv reads the environment (nil = os.Getenv).
	Getenv func(string) string
}

// EnvName is the environment variable for a flag: max-sessions ->
// AGENTTY_MAX_SESSIONS.
func EnvName(flagName string) string {
	// One pass, no replacer built per call: serve asks for every flag's.
	return EnvPrefix + strings.Map(func(r rune) rune {
		if r == '-' || r == '.' {
			return '_'
		}
		return unicode.ToUpper(r)
	}, flagName)
}

// DefaultPath is $XDG_CONFIG_HOME/agentty/config.toml, falling back to
// ~/.config/agentty/config.toml.
func DefaultPath(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			home = getenv("HOME")
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "agentty", "config.toml")
}

// Load parses args into fs, then fills every flag not given on the command
// line from the environment or the file. It defines the -config flag on fs
// when the caller has not.
func Load(fs *flag.FlagSet, args []string, o *Options) (*Config, error) {
	getenv := os.Getenv
	if o != nil && o.Getenv != nil {
		getenv = o.Getenv
	}
	if fs.Lookup(FlagName) == nil {
		fs.String(FlagName, "", "configuration file (default $XDG_CONFIG_HOME/agentty/config.toml; env "+EnvName(FlagName)+")")
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	c := &Config{Sources: map[string]Source{}, sections: map[string]toml.Primitive{}}
	explicit := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	fs.VisitAll(func(f *flag.Flag) { c.Sources[f.Name] = FromDefault })
	for n := range explicit {
		c.Sources[n] = FromFlag
	}

	path, required := fs.Lookup(FlagName).Value.String(), true
	if !explicit[FlagName] {
		if v := getenv(EnvName(FlagName)); v != "" {
			path = v
			c.Sources[FlagName] = FromEnv
		} else {
			path, required = DefaultPath(getenv), false
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrConfig, path, err)
	}
	c.Dir = filepath.Dir(abs)
	file, err := c.read(abs, required)
	if err != nil {
		return nil, err
	}

	for _, name := range slices.Sorted(mapKeys(file)) {
		if explicit[name] || getenv(EnvName(name)) != "" {
			continue
		}
		if err := fs.Set(name, file[name]); err != nil {
			return nil, fmt.Errorf("%w: %s: key %q: %v", ErrConfig, c.Path, name, err)
		}
		c.Sources[name] = FromFile
	}
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		if explicit[f.Name] || f.Name == FlagName || envErr != nil {
			return
		}
		v := getenv(EnvName(f.Name))
		if v == "" {
			return
		}
		if err := fs.Set(f.Name, v); err != nil {
			envErr = fmt.Errorf("%w: %s=%q: %v", ErrConfig, EnvName(f.Name), v, err)
			return
		}
		c.Sources[f.Name] = FromEnv
	})
	if envErr != nil {
		return nil, envErr
	}
	return c, nil
}

// read decodes the file: top-level keys become flag values (returned as
// strings for flag.Value.Set), tables are kept for Section.
func (c *Config) read(path string, required bool) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !required {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	c.Path = path
	var raw map[string]toml.Primitive
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrConfig, path, err)
	}
	c.md = md
	out := map[string]string{}
	for k, prim := range raw {
		switch md.Type(k) {
		case "Hash":
			// Decoded later by Section, so unknown keys inside are caught.
			c.sections[k] = prim
			continue
		case "Array", "ArrayHash":
			return nil, fmt.Errorf("%w: %s: key %q is a list; lists belong in a section such as [policy]", ErrConfig, path, k)
		}
		var v any
		if err := md.PrimitiveDecode(prim, &v); err != nil {
			return nil, fmt.Errorf("%w: %s: key %q: %v", ErrConfig, path, k, err)
		}
		if _, isTable := v.(map[string]any); isTable {
			// A table defined only through its subtables ([ssh.hosts."x"]
			// without [ssh]) has no "Hash" type of its own.
			c.sections[k] = prim
			continue
		}
		out[k] = fmt.Sprint(v)
	}
	return out, nil
}

// Check reports top-level keys of the file that are neither a flag of fs nor
// a known section, so a typo does not silently keep a default.
func (c *Config) Check(fs *flag.FlagSet, sections ...string) error {
	if c.Path == "" {
		return nil
	}
	for _, k := range c.md.Keys() {
		if len(k) != 1 {
			continue
		}
		name := k[0]
		if _, isSection := c.sections[name]; isSection {
			if !slices.Contains(sections, name) {
				return fmt.Errorf("%w: %s: unknown section [%s] (known: %s)", ErrConfig, c.Path, name, strings.Join(sections, ", "))
			}
			continue
		}
		if fs.Lookup(name) == nil {
			return fmt.Errorf("%w: %s: unknown key %q; keys are the flag names of 'agentty serve -h'", ErrConfig, c.Path, name)
		}
	}
	return nil
}

// Has reports whether the file has the section.
func (c *Config) Has(name string) bool {
	_, ok := c.sections[name]
	return ok
}

// Section decodes the table [name] into v (a pointer to a struct with toml
// tags). A missing section leaves v alone; a key v has no field for is an
// error, so typos in rules are caught at startup.
func (c *Config) Section(name string, v any) error {
	prim, ok := c.sections[name]
	if !ok {
		return nil
	}
	if err := c.md.PrimitiveDecode(prim, v); err != nil {
		return fmt.Errorf("%w: %s: [%s]: %v", ErrConfig, c.Path, name, err)
	}
	for _, k := range c.md.Undecoded() {
		if len(k) >= 2 && k[0] == name {
			return fmt.Errorf("%w: %s: [%s]: unknown key %q", ErrConfig, c.Path, name, strings.Join(k[1:], "."))
		}
	}
	return nil
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// UnknownEnv lists AGENTTY_* variables in environ that name no flag of fs,
// so a misspelt variable is reported instead of silently ignored. Names in
// ignore (variables agentty sets for other purposes) are skipped.
func UnknownEnv(fs *flag.FlagSet, environ []string, ignore ...string) []string {
	if !slices.ContainsFunc(environ, func(kv string) bool { return strings.HasPrefix(kv, EnvPrefix) }) {
		return nil // the usual case: no flag's name to build
	}
	known := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { known[EnvName(f.Name)] = true })
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, EnvPrefix) && !known[name] && !slices.Contains(ignore, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
