package policy

import (
	"strconv"
	"strings"
)

// safeBuiltins run inside the shell and cannot start another program or
// run code; they need no allow entry.
var safeBuiltins = map[string]bool{"echo": true, "printf": true, "true": true, "false": true, "test": true,
	"[": true, "pwd": true, "read": true, "exit": true, "return": true, "shift": true, "local": true,
	"export": true, "declare": true, "typeset": true, "readonly": true, "unset": true, "wait": true,
	":": true, "break": true, "continue": true, "set": true, "getopts": true, "type": true, "umask": true,
	"shopt": true, "times": true, "jobs": true, "fg": true, "bg": true, "disown": true, "dirs": true}

// opaqueBuiltins run code the checker cannot see before it runs.
var opaqueBuiltins = map[string]string{
	"eval":      "eval runs a string built at run time",
	"source":    "source runs a file's contents",
	".":         ". runs a file's contents",
	"alias":     "an alias changes what a command name runs",
	"unalias":   "aliases are not allowed while a command policy is on",
	"enable":    "enable loads or swaps builtins",
	"hash":      "hash changes which file a command name runs",
	"fc":        "fc re-runs commands from history",
	"bind":      "bind -x runs commands on key presses",
	"complete":  "complete -C runs commands on completion",
	"compgen":   "compgen -C runs commands",
	"mapfile":   "mapfile -C runs a callback",
	"readarray": "readarray -C runs a callback",
	"history":   "history can rewrite what fc and ! re-run",
}

// argv checks one simple command: its words after expansion, as far as they
// are known. via names the wrapper that runs it, for messages.
func (c *checker) argv(args []arg, depth int, via string) {
	if c.done() || len(args) == 0 {
		return
	}
	on := c.p.Enabled()
	if depth > maxDepth {
		c.note(refuse(RuleUndecidable, args[0].val, "commands nested more than %d levels deep (wrappers and sh -c) are not checked", maxDepth))
		return
	}
	name := args[0]
	for _, a := range args {
		if a.static {
			if c.note(c.pathArg(a.val)); c.done() {
				return
			}
			// --file=PATH and similar
			if _, v, ok := strings.Cut(a.val, "="); ok && strings.ContainsAny(v, "/~") {
				if c.note(c.pathArg(v)); c.done() {
					return
				}
			}
		}
	}
	if !name.static {
		if on {
			c.note(refuse(RuleUndecidable, name.src, "the command name is computed at run time (variable, command substitution, glob or brace expansion), so the checker cannot tell what runs; write the program name literally"))
		}
		return
	}
	vals := make([]string, len(args))
	for i, a := range args {
		vals[i] = a.val
	}
	c.patterns(strings.Join(vals, " "))
	if c.done() {
		return
	}
	cmd := name.val
	if c.funcs[cmd] && !strings.Contains(cmd, "/") {
		return // a function defined in this command line; its body is checked
	}
	if on {
		if why, ok := opaqueBuiltins[cmd]; ok {
			c.note(refuse(RuleUndecidable, cmd, "%s; not allowed while a command policy is on", why))
			return
		}
	}
	switch cmd {
	case "cd", "pushd", "popd":
		c.cd(args)
		return
	case "trap":
		c.trap(args, depth)
		return
	case "exec", "command", "builtin":
		c.shellWrapper(args, depth)
		return
	}
	if safeBuiltins[cmd] {
		return
	}
	e := c.p.resolve(cmd, c.cwd)
	c.unwrap(e, args, depth)
	if c.done() {
		return
	}
	c.note(c.p.checkExe(e, via))
	if c.done() {
		return
	}
	if en, ok := c.p.matchAny(c.p.confirm, e, false); ok {
		c.note(Decision{Verdict: Confirm, Rule: RuleConfirm, Subject: strings.Join(vals, " "),
			Reason: cmd + " is on the confirm list (entry " + quote(en.raw) + ")"})
	}
}

func quote(s string) string { return strconv.Quote(s) }
func itoa(i int) string     { return strconv.Itoa(i) }

// cd checks the new directory (protected directories always, cwd roots
// when configured) and follows it, so later relative paths in the same
// command line are resolved where the shell will be.
func (c *checker) cd(args []arg) {
	var target arg
	switch {
	case len(args) == 1:
		target = arg{val: c.p.home, static: true}
	default:
		target = args[len(args)-1]
	}
	if target.static && target.val == "-" || (target.static && args[0].val == "popd") {
		target.static = false
	}
	if !target.static {
		if c.p.Enabled() && len(c.p.cwdRoots) > 0 {
			c.note(refuse(RuleUndecidable, args[0].val+" "+target.src, "the directory is computed at run time and cwd roots are configured; cd to a literal path"))
		}
		return
	}
	abs := c.p.absPath(target.val, c.cwd)
	d := c.p.CheckCwd(abs)
	if !c.p.Enabled() && d.Rule != RuleProtected {
		d = allowed
	}
	c.note(d)
	c.cwd, c.base, c.dirs = abs, "", nil
}

func (c *checker) trap(args []arg, depth int) {
	if len(args) < 3 || !c.p.Enabled() {
		return // listing or resetting traps
	}
	a := args[1]
	if a.static && strings.HasPrefix(a.val, "-") {
		return
	}
	if !a.static {
		c.note(refuse(RuleUndecidable, "trap "+a.src, "the trap action is computed at run time; write it literally"))
		return
	}
	c.sub(a.val, depth+1)
}

// sub checks a nested script (sh -c, trap, watch).
func (c *checker) sub(script string, depth int) {
	if depth > maxDepth {
		c.note(refuse(RuleUndecidable, clip(script), "commands nested more than %d levels deep are not checked", maxDepth))
		return
	}
	inner := &checker{p: c.p, cwd: c.cwd}
	inner.note(inner.script(script, depth))
	if inner.refused != nil {
		c.note(*inner.refused)
	} else if inner.confirm != nil {
		c.note(*inner.confirm)
	}
}

// shellWrapper handles exec, command and builtin.
func (c *checker) shellWrapper(args []arg, depth int) {
	i := 1
	for ; i < len(args); i++ {
		a := args[i]
		if !a.static {
			if c.p.Enabled() {
				c.note(refuse(RuleUndecidable, args[0].val+" "+a.src, "%s with a computed word; write the command literally", args[0].val))
			}
			return
		}
		if a.val == "--" {
			i++
			break
		}
		if !strings.HasPrefix(a.val, "-") || a.val == "-" {
			break
		}
		if args[0].val == "command" && strings.ContainsAny(a.val, "vV") {
			return // command -v only looks the name up
		}
		if args[0].val == "exec" && a.val == "-a" {
			i++
		}
	}
	c.argv(args[i:], depth+1, args[0].val)
}

// wrapperOpts describe how a wrapper's options are written.
type wrapperOpts struct {
	withArg    string // short options that take the next word
	longArg    []string
	assigns    bool // NAME=value words before the command (env, sudo)
	positional int  // words between the options and the command (timeout DURATION)
}

var wrappers = map[string]wrapperOpts{
	"env":      {withArg: "uCS", longArg: []string{"--unset", "--chdir", "--split-string"}, assigns: true},
	"sudo":     {withArg: "ugChpUrtTDR", longArg: []string{"--user", "--group", "--close-from", "--host", "--prompt", "--other-user", "--role", "--type", "--command-timeout", "--chdir", "--chroot"}, assigns: true},
	"doas":     {withArg: "uC"},
	"nice":     {withArg: "n", longArg: []string{"--adjustment"}},
	"nohup":    {},
	"timeout":  {withArg: "sk", longArg: []string{"--signal", "--kill-after"}, positional: 1},
	"stdbuf":   {withArg: "ioe", longArg: []string{"--input", "--output", "--error"}},
	"setsid":   {},
	"time":     {withArg: "fo", longArg: []string{"--format", "--output"}},
	"xargs":    {withArg: "adEILnPs", longArg: []string{"--arg-file", "--delimiter", "--eof", "--replace", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}},
	"ionice":   {withArg: "cnpPtu", longArg: []string{"--class", "--classdata", "--pid", "--pgid", "--uid"}},
	"chrt":     {positional: 1},
	"taskset":  {positional: 1},
	"unbuffer": {},
}

// unwrap checks the command a wrapper, shell, find or busybox runs.
func (c *checker) unwrap(e exe, args []arg, depth int) {
	base := e.base
	switch {
	case shells[base]:
		c.shell(args, depth)
		return
	case foreignShells[base]:
		for _, a := range args[1:] {
			if a.static && strings.HasPrefix(a.val, "-") && strings.Contains(a.val, "c") && c.p.Enabled() {
				c.note(refuse(RuleUndecidable, args[0].val, "%s's command syntax is not checked; use sh or bash", base))
				return
			}
		}
		return
	case base == "find":
		c.find(args, depth)
		return
	case base == "busybox":
		c.argv(args[1:], depth+1, "busybox")
		return
	case base == "watch":
		c.watch(args, depth)
		return
	}
	w, ok := wrappers[base]
	if !ok {
		return
	}
	i, ok := c.skipOptions(args, w)
	if !ok {
		return
	}
	if base == "sudo" || base == "env" {
		for _, a := range args[1:i] {
			if a.static && (a.val == "-S" || strings.HasPrefix(a.val, "--split-string")) && c.p.Enabled() {
				c.note(refuse(RuleUndecidable, args[0].val+" "+a.val, "env -S splits a string into a command; give the command as separate words"))
				return
			}
		}
	}
	i += w.positional
	if i >= len(args) {
		return
	}
	c.argv(args[i:], depth+1, base)
}

// skipOptions returns the index of the wrapped command, checking NAME=value
// words on the way.
func (c *checker) skipOptions(args []arg, w wrapperOpts) (int, bool) {
	i := 1
	for i < len(args) {
		a := args[i]
		if !a.static {
			if c.p.Enabled() {
				c.note(refuse(RuleUndecidable, args[0].val+" "+a.src, "%s with a computed option or command word; write it literally", args[0].val))
			}
			return 0, false
		}
		v := a.val
		switch {
		case v == "--":
			return i + 1, true
		case w.assigns && strings.Contains(v, "=") && !strings.HasPrefix(v, "-") && isName(v[:strings.Index(v, "=")]):
			name, val, _ := strings.Cut(v, "=")
			if c.p.Enabled() {
				if c.note(c.p.assignment(name, val, true)); c.done() {
					return 0, false
				}
			}
			i++
		case strings.HasPrefix(v, "--"):
			i++
			for _, l := range w.longArg {
				if v == l {
					i++ // value in the next word
				}
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			i++
			// -n 10, or -n10 (value attached); -10 for nice
			last := v[len(v)-1:]
			if strings.Contains(w.withArg, last) && !isDigits(v[1:]) {
				i++
			}
		default:
			return i, true
		}
	}
	return i, true
}

// shell checks sh/bash -c SCRIPT; without -c a shell runs a file or its
// input, which is what allowing the shell means.
func (c *checker) shell(args []arg, depth int) {
	cflag := false
	for i := 1; i < len(args); i++ {
		a := args[i]
		if !a.static {
			if cflag || c.p.Enabled() {
				c.note(refuse(RuleUndecidable, args[0].val+" "+a.src, "the shell's script or options are computed at run time; write the -c script literally"))
			}
			return
		}
		v := a.val
		switch {
		case v == "--" || v == "-":
			if cflag && i+1 < len(args) {
				c.shellScript(args[0].val, args[i+1], depth)
			}
			return
		case v == "-o" || v == "+o" || v == "-O" || v == "+O" || v == "--rcfile" || v == "--init-file":
			i++
		case strings.HasPrefix(v, "--"):
		case strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+"):
			if strings.Contains(v[1:], "c") {
				cflag = true
			}
		default:
			if cflag {
				c.shellScript(args[0].val, a, depth)
			}
			return
		}
	}
	if cflag && c.p.Enabled() {
		c.note(refuse(RuleUndecidable, args[0].val+" -c", "the -c script is missing from the command, so it comes from somewhere the checker cannot see (xargs, stdin)"))
	}
}

func (c *checker) shellScript(shell string, a arg, depth int) {
	if !a.static {
		if c.p.Enabled() {
			c.note(refuse(RuleUndecidable, shell+" -c "+a.src, "the -c script is computed at run time; write it literally"))
		}
		return
	}
	c.sub(a.val, depth+1)
}

// find checks the commands of -exec, -execdir, -ok and -okdir.
func (c *checker) find(args []arg, depth int) {
	for i := 1; i < len(args); i++ {
		a := args[i]
		if !a.static || (a.val != "-exec" && a.val != "-execdir" && a.val != "-ok" && a.val != "-okdir") {
			continue
		}
		j := i + 1
		for j < len(args) && !(args[j].static && (args[j].val == ";" || args[j].val == "+")) {
			j++
		}
		c.argv(args[i+1:j], depth+1, "find "+a.val)
		if c.done() {
			return
		}
		i = j
	}
}

// watch runs its arguments joined by sh -c, or directly with -x.
func (c *checker) watch(args []arg, depth int) {
	i, ok := c.skipOptions(args, wrapperOpts{withArg: "nd", longArg: []string{"--interval"}})
	if !ok || i >= len(args) {
		return
	}
	for _, a := range args[1:i] {
		if a.static && (a.val == "-x" || a.val == "--exec") {
			c.argv(args[i:], depth+1, "watch")
			return
		}
	}
	parts := make([]string, 0, len(args)-i)
	for _, a := range args[i:] {
		if !a.static {
			if c.p.Enabled() {
				c.note(refuse(RuleUndecidable, "watch "+a.src, "watch's command is computed at run time"))
			}
			return
		}
		parts = append(parts, a.val)
	}
	c.sub(strings.Join(parts, " "), depth+1)
}
