package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Rules is the [policy] section of the configuration. The command policy is
// off while every list is empty and Secure is false.
type Rules struct {
	// Allow lists executables that may run; when empty, any executable not
	// denied may run. A bare name ("git") matches that name looked up in
	// PATH and any file of that name in a PATH directory; "./x" matches
	// exactly "./x"; an absolute path matches itself or a bare name that
	// PATH resolves to the same file.
	Allow []string `toml:"allow"`
	// Deny lists executables that never run. A bare name matches that base
	// name at any path (deny "rm" refuses /bin/rm and ../../bin/rm too).
	Deny []string `toml:"deny"`
	// DenyPatterns are RE2 regexps over the full command line and over each
	// simple command in it with quotes removed.
	DenyPatterns []string `toml:"deny_patterns"`
	// Confirm lists executables (matched like Allow) that run only after a
	// human accepts, asked through MCP elicitation.
	Confirm []string `toml:"confirm"`
	// ConfirmPatterns are RE2 regexps like DenyPatterns that need confirmation.
	ConfirmPatterns []string `toml:"confirm_patterns"`
	// Cwd lists directories that commands may run in (and below).
	Cwd []string `toml:"cwd"`
	// Secure runs argv commands only: no shell command lines, no shells.
	Secure bool `toml:"secure"`
}

// Options configure a Policy.
type Options struct {
	Rules
	// Protected directories are never a command's working directory or a
	// path it names: agentty's configuration and audit log live there.
	Protected []string
	// PathEnv is the PATH executables are resolved in ("" = this process's).
	PathEnv string
	// Home expands ~ ("" = this user's home directory).
	Home string
	// MaxScriptBytes bounds a command line the checker will parse (0 = 1 MiB).
	MaxScriptBytes int
}

// DefaultMaxScriptBytes is the longest command line checked.
const DefaultMaxScriptBytes = 1 << 20

// maxDepth bounds nested sh -c / wrapper levels.
const maxDepth = 8

// Policy decides about commands. It is immutable after New and safe for
// concurrent use; a nil *Policy allows everything.
type Policy struct {
	rules     Rules
	enabled   bool
	allow     []entry
	deny      []entry
	confirm   []entry
	denyRe    []*regexp.Regexp
	confirmRe []*regexp.Regexp
	cwdRoots  []string // cleaned, symlinks resolved
	protected []string // cleaned, symlinks resolved where they exist
	spellings []string // ways a script can spell a protected directory
	// pathDirs are the absolute PATH directories, as written and resolved,
	// resolved at the first allow rule that needs them: a cold start does
	// not stat every PATH directory's components for a policy that may
	// never match a path-qualified command.
	pathDirs  func() []string
	pathEnv   string
	home      string
	maxScript int
}

// New compiles the rules; it fails on an invalid regexp or relative cwd root.
func New(o Options) (*Policy, error) {
	p := &Policy{rules: o.Rules, pathEnv: o.PathEnv, home: o.Home, maxScript: o.MaxScriptBytes}
	if p.pathEnv == "" {
		p.pathEnv = os.Getenv("PATH")
	}
	if p.home == "" {
		p.home, _ = os.UserHomeDir()
	}
	if p.maxScript <= 0 {
		p.maxScript = DefaultMaxScriptBytes
	}
	p.pathDirs = sync.OnceValue(func() []string {
		var dirs []string
		for _, d := range filepath.SplitList(p.pathEnv) {
			if filepath.IsAbs(d) {
				dirs = append(dirs, filepath.Clean(d), realPath(d))
			}
		}
		return dirs
	})
	r := o.Rules
	p.enabled = len(r.Allow)+len(r.Deny)+len(r.DenyPatterns)+len(r.Confirm)+len(r.ConfirmPatterns)+len(r.Cwd) > 0 || r.Secure
	var err error
	if p.allow, err = entries("allow", r.Allow); err != nil {
		return nil, err
	}
	if p.deny, err = entries("deny", r.Deny); err != nil {
		return nil, err
	}
	if p.confirm, err = entries("confirm", r.Confirm); err != nil {
		return nil, err
	}
	if p.denyRe, err = compile("deny_patterns", r.DenyPatterns); err != nil {
		return nil, err
	}
	if p.confirmRe, err = compile("confirm_patterns", r.ConfirmPatterns); err != nil {
		return nil, err
	}
	for _, c := range r.Cwd {
		c = p.expandHome(c)
		if !filepath.IsAbs(c) {
			return nil, fmt.Errorf("policy: cwd root %q must be an absolute path", c)
		}
		p.cwdRoots = append(p.cwdRoots, realPath(c))
	}
	for _, d := range o.Protected {
		if d == "" {
			continue
		}
		abs, err := filepath.Abs(p.expandHome(d))
		if err != nil {
			return nil, fmt.Errorf("policy: protected %q: %w", d, err)
		}
		p.protected = append(p.protected, filepath.Clean(abs))
		if r := realPath(abs); r != filepath.Clean(abs) {
			p.protected = append(p.protected, r)
		}
		p.spellings = append(p.spellings, filepath.Clean(abs))
		for _, v := range []struct{ name, dir string }{{"HOME", p.home}, {"XDG_CONFIG_HOME", os.Getenv("XDG_CONFIG_HOME")}} {
			if v.dir == "" {
				continue
			}
			if rel, err := filepath.Rel(v.dir, abs); err == nil && !strings.HasPrefix(rel, "..") && rel != "." {
				p.spellings = append(p.spellings, "$"+v.name+"/"+rel, "${"+v.name+"}/"+rel)
				if v.name == "HOME" {
					p.spellings = append(p.spellings, "~/"+rel)
				}
			}
		}
	}
	return p, nil
}

func compile(name string, pats []string) ([]*regexp.Regexp, error) {
	out := make([]*regexp.Regexp, len(pats))
	for i, s := range pats {
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("policy: %s[%d] %q is not a valid RE2 regexp: %w", name, i, s, err)
		}
		out[i] = re
	}
	return out, nil
}

// Enabled reports whether any command rule is configured.
func (p *Policy) Enabled() bool { return p != nil && p.enabled }

// Rules returns the configured rules.
func (p *Policy) Rules() Rules {
	if p == nil {
		return Rules{}
	}
	return p.rules
}

// Protected returns the protected directories.
func (p *Policy) Protected() []string {
	if p == nil {
		return nil
	}
	return slices.Clone(p.protected)
}

// Summary describes the policy in one line for logs and the audit log.
func (p *Policy) Summary() string {
	if !p.Enabled() {
		return "command policy off (protected: " + strings.Join(p.Protected(), ", ") + ")"
	}
	r := p.rules
	return fmt.Sprintf("allow=%v deny=%v deny_patterns=%v confirm=%v confirm_patterns=%v cwd=%v secure=%v protected=%v",
		r.Allow, r.Deny, r.DenyPatterns, r.Confirm, r.ConfirmPatterns, r.Cwd, r.Secure, p.protected)
}

// CheckCwd decides whether a command may run in dir ("" = this process's
// working directory).
func (p *Policy) CheckCwd(dir string) Decision {
	if p == nil {
		return allowed
	}
	abs, err := absDir(p.expandHome(dir))
	if err != nil {
		return refuse(RuleCwd, dir, "cannot resolve the working directory: %v", err)
	}
	if under(abs, p.protected) {
		return refuse(RuleProtected, dir, "%s is agentty's configuration or audit directory; choose another working directory", abs)
	}
	if len(p.cwdRoots) > 0 && !under(abs, p.cwdRoots) {
		return refuse(RuleCwd, dir, "working directory %s is outside the allowed roots %v; use a directory under one of them", abs, p.rules.Cwd)
	}
	return allowed
}

// CheckPath decides whether a tool may write path (relative to cwd). Tools
// that write files call it before writing.
func (p *Policy) CheckPath(path, cwd string) Decision {
	if p == nil {
		return allowed
	}
	if d := p.pathArg(path, cwd); !d.Allowed() {
		return d
	}
	if len(p.cwdRoots) > 0 {
		abs := p.absPath(path, cwd)
		if !under(realPath(abs), p.cwdRoots) {
			return refuse(RuleCwd, path, "%s is outside the allowed roots %v", abs, p.rules.Cwd)
		}
	}
	return allowed
}

// CheckEnv decides about environment variables a caller sets for a command.
func (p *Policy) CheckEnv(env map[string]string) Decision {
	if !p.Enabled() {
		return allowed
	}
	for _, k := range slices.Sorted(mapsKeys(env)) {
		if d := p.assignment(k, env[k], true); !d.Allowed() {
			return d
		}
	}
	return allowed
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// dangerousVar reports variables whose value changes which program runs or
// injects code into programs the policy allowed.
func dangerousVar(name string) bool {
	switch name {
	case "PATH", "BASH_ENV", "ENV", "PROMPT_COMMAND", "IFS", "SHELLOPTS", "BASHOPTS", "PS0", "PS4",
		"PAGER", "EDITOR", "VISUAL", "MANPAGER", "BROWSER", "PERL5OPT", "PYTHONSTARTUP", "NODE_OPTIONS":
		return true
	}
	if strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "BASH_FUNC_") || strings.HasPrefix(name, "DYLD_") {
		return true
	}
	if strings.HasPrefix(name, "GIT_") {
		for _, s := range []string{"SSH", "PAGER", "EDITOR", "EXEC", "EXTERNAL", "PROXY", "ASKPASS", "CONFIG", "TEMPLATE", "DIR"} {
			if strings.Contains(name, s) {
				return true
			}
		}
	}
	return false
}

// assignment checks NAME=value given to a command or set in a script.
func (p *Policy) assignment(name, value string, static bool) Decision {
	if dangerousVar(name) {
		return refuse(RuleEnv, name+"="+value, "setting %s changes which program runs or injects code into it; it cannot be set while a command policy is on", name)
	}
	if static && hasEmbeddedCode(value) {
		return refuse(RuleEmbeddedCode, name+"="+value, "the value contains shell code ($(...) or backquotes) that a later expansion could run")
	}
	return allowed
}

// hasEmbeddedCode reports text that a re-evaluating context (arithmetic,
// prompts, eval-like options) would run as a command.
func hasEmbeddedCode(s string) bool { return strings.Contains(s, "$(") || strings.Contains(s, "`") }

func (p *Policy) expandHome(s string) string {
	if s == "~" {
		return p.home
	}
	if strings.HasPrefix(s, "~/") && p.home != "" {
		return filepath.Join(p.home, s[2:])
	}
	return s
}

func (p *Policy) absPath(path, cwd string) string {
	path = p.expandHome(path)
	if !filepath.IsAbs(path) {
		base, err := absDir(cwd)
		if err != nil {
			base = cwd
		}
		path = filepath.Join(base, path)
	}
	return filepath.Clean(path)
}

// pathArg refuses a path that lies under a protected directory.
func (p *Policy) pathArg(path, cwd string) Decision {
	if len(p.protected) == 0 || path == "" {
		return allowed
	}
	abs := p.absPath(path, cwd)
	if under(abs, p.protected) || under(realPath(abs), p.protected) {
		return refuse(RuleProtected, path, "%s is under agentty's configuration or audit directory, which agents may not touch", abs)
	}
	return allowed
}

func absDir(dir string) (string, error) {
	if dir == "" {
		d, err := os.Getwd()
		if err != nil {
			return "", err
		}
		dir = d
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return realPath(abs), nil
}

// realPath resolves symlinks in the longest existing prefix of path, so a
// symlink cannot smuggle a protected directory under another name.
func realPath(path string) string {
	path = filepath.Clean(path)
	rest := ""
	for cur := path; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return path
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// under reports whether path is one of roots or inside one.
func under(path string, roots []string) bool {
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, strings.TrimSuffix(r, "/")+"/") {
			return true
		}
	}
	return false
}
