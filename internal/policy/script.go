package policy

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// CheckScript decides whether a shell command line may run in cwd. Every
// simple command in it is checked (see the package doc). A refusal wins
// over a confirmation, which wins over an allow.
func (p *Policy) CheckScript(script, cwd string) Decision {
	if p == nil {
		return allowed
	}
	cwd = p.expandHome(cwd)
	if d := p.CheckCwd(cwd); !d.Allowed() {
		return d
	}
	if len(script) > p.maxScript {
		return refuse(RuleLength, clip(script), "the command line is %d bytes; the checker reads at most %d (put long scripts in a file and run it with an allowed interpreter)", len(script), p.maxScript)
	}
	if p.rules.Secure {
		return refuse(RuleSecure, clip(script), "secure mode runs no shell command lines; give argv (program and arguments) instead")
	}
	c := &checker{p: p, cwd: cwd}
	return c.script(script, 0)
}

// CheckArgv decides whether argv (executed directly, no shell) may run in cwd.
func (p *Policy) CheckArgv(argv []string, cwd string) Decision {
	if p == nil || len(argv) == 0 {
		return allowed
	}
	cwd = p.expandHome(cwd)
	if d := p.CheckCwd(cwd); !d.Allowed() {
		return d
	}
	args := make([]arg, len(argv))
	for i, a := range argv {
		args[i] = arg{val: a, static: true}
	}
	c := &checker{p: p, cwd: cwd}
	if d := c.protectedText(strings.Join(argv, " ")); !d.Allowed() {
		return d
	}
	c.argv(args, 0, "")
	return c.result()
}

// checker walks one command line; it is used once.
type checker struct {
	p       *Policy
	cwd     string
	funcs   map[string]bool // functions defined in the script: calling them runs a checked body
	refused *Decision
	confirm *Decision

	printer *syntax.Printer   // reused for the source text of computed words
	expand  *expand.Config    // for quote removal and ~
	base    string            // cwd with symlinks resolved, once
	dirs    map[string]string // directory -> symlinks resolved
}

func (c *checker) note(d Decision) {
	switch d.Verdict {
	case Refuse:
		if c.refused == nil {
			c.refused = &d
		}
	case Confirm:
		if c.confirm == nil {
			c.confirm = &d
		}
	}
}

func (c *checker) done() bool { return c.refused != nil }

func (c *checker) result() Decision {
	switch {
	case c.refused != nil:
		return *c.refused
	case c.confirm != nil:
		return *c.confirm
	}
	return allowed
}

// protectedText refuses a command line that spells a protected directory,
// even through a variable ($HOME/...) the checker cannot expand.
func (c *checker) protectedText(s string) Decision {
	for _, sp := range c.p.spellings {
		if strings.Contains(s, sp) {
			return refuse(RuleProtected, sp, "the command names agentty's configuration or audit directory, which agents may not touch")
		}
	}
	return allowed
}

// patterns applies deny_patterns and confirm_patterns to text.
func (c *checker) patterns(text string) {
	for i, re := range c.p.denyRe {
		if re.MatchString(text) {
			c.note(refuse(RuleDenyPatterns, clip(text), "matches deny_patterns[%d] %q", i, re.String()))
			return
		}
	}
	for i, re := range c.p.confirmRe {
		if re.MatchString(text) {
			c.note(Decision{Verdict: Confirm, Rule: RuleConfirmPatterns, Subject: clip(text),
				Reason: "matches confirm_patterns[" + itoa(i) + "] " + quote(re.String())})
			return
		}
	}
}

// script parses src and checks every command in it.
func (c *checker) script(src string, depth int) Decision {
	if d := c.protectedText(src); !d.Allowed() {
		return d
	}
	c.patterns(src)
	if c.done() {
		return c.result()
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		if !c.p.Enabled() {
			return allowed // the shell reports its own syntax error
		}
		return refuse(RuleSyntax, clip(src), "cannot parse the command line: %v", err)
	}
	c.walk(f, depth)
	return c.result()
}

func (c *checker) walk(root syntax.Node, depth int) {
	syntax.Walk(root, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			if c.funcs == nil {
				c.funcs = map[string]bool{}
			}
			c.funcs[fd.Name.Value] = true
		}
		return true
	})
	syntax.Walk(root, func(n syntax.Node) bool {
		if c.done() {
			return false
		}
		c.node(n, depth)
		return !c.done()
	})
}

func (c *checker) node(n syntax.Node, depth int) {
	on := c.p.Enabled()
	switch n := n.(type) {
	case *syntax.CallExpr:
		for _, a := range n.Assigns {
			c.assign(a)
		}
		if len(n.Args) > 0 {
			args := make([]arg, len(n.Args))
			for i, w := range n.Args {
				args[i] = c.word(w)
			}
			c.argv(args, depth, "")
		}
	case *syntax.DeclClause:
		for _, a := range n.Args {
			if a.Naked && a.Name == nil && a.Value != nil {
				c.declWord(n.Variant.Value, c.word(a.Value))
				continue
			}
			c.assign(a)
		}
		if on && n.Variant.Value == "nameref" {
			c.note(refuse(RuleUndecidable, "nameref", "namerefs make assignments indirect; not allowed while a command policy is on"))
		}
	case *syntax.Stmt:
		c.shellStdin(n, depth)
	case *syntax.BinaryCmd:
		if on && (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && c.stdinShell(n.Y) != "" {
			c.note(refuse(RuleUndecidable, c.stdinShell(n.Y), "a shell reading its commands from a pipe runs text the checker cannot see; give the commands literally (sh -c '...')"))
		}
	case *syntax.Redirect:
		c.redirect(n)
	case *syntax.ArithmExp:
		c.arithm(n.X, "$((...))")
	case *syntax.ArithmCmd:
		c.arithm(n.X, "((...))")
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			c.arithm(x, "let")
		}
	case *syntax.ParamExp:
		if n.Index != nil {
			c.arithm(n.Index, "array subscript")
		}
		if n.Slice != nil {
			c.arithm(n.Slice.Offset, "${var:offset}")
			c.arithm(n.Slice.Length, "${var:offset:length}")
		}
	case *syntax.BinaryTest:
		if on && isArithTest(n.Op) {
			for _, x := range []syntax.TestExpr{n.X, n.Y} {
				if w, ok := x.(*syntax.Word); ok && !c.word(w).static {
					c.note(refuse(RuleUndecidable, n.Op.String(), "[[ %s ]] evaluates a variable's value as arithmetic, which can run code hidden in it; compare with [ ] (test) instead", n.Op))
				}
			}
		}
	}
}

// declWord checks a declare/export/local word that is not a plain
// assignment: an option, or text the shell turns into an assignment at run
// time.
func (c *checker) declWord(variant string, v arg) {
	if !c.p.Enabled() {
		return
	}
	switch {
	case !v.static:
		c.note(refuse(RuleUndecidable, variant+" "+v.src, "%s with a computed word can set any variable (PATH, ...); write the assignment literally", variant))
	case strings.HasPrefix(v.val, "-") && strings.ContainsAny(v.val, "in"):
		c.note(refuse(RuleUndecidable, variant+" "+v.val, "integer and nameref variables evaluate their values as code; not allowed while a command policy is on"))
	case strings.Contains(v.val, "="):
		name, val, _ := strings.Cut(v.val, "=")
		c.note(c.p.assignment(strings.TrimSuffix(name, "+"), val, true))
	}
}

// stdinShell returns the shell's name when st runs a shell that takes its
// commands from standard input (no -c, no script file).
func (c *checker) stdinShell(st *syntax.Stmt) string {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return ""
	}
	argv := make([]string, len(call.Args))
	for i, w := range call.Args {
		a := c.word(w)
		if !a.static {
			return ""
		}
		argv[i] = a.val
	}
	if IsInteractiveShell(argv) {
		return argv[0]
	}
	return ""
}

// shellStdin checks the script a shell reads from a here-document or
// here-string, as if it were given with -c.
func (c *checker) shellStdin(st *syntax.Stmt, depth int) {
	sh := c.stdinShell(st)
	if sh == "" {
		return
	}
	for _, r := range st.Redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		var body *syntax.Word
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			body = r.Hdoc
		case syntax.WordHdoc:
			body = r.Word
		case syntax.RdrIn:
			continue // a script file: running it is what allowing the shell means
		default:
			continue
		}
		if body == nil {
			continue
		}
		a := c.word(body)
		if !a.static {
			// Unquoted here-document: expansions happen first.
			if b, ok := heredocText(body); ok {
				a = arg{val: b, static: true}
			}
		}
		if !a.static {
			if c.p.Enabled() {
				c.note(refuse(RuleUndecidable, sh, "the script %s reads from its input is computed at run time; give it literally", sh))
			}
			return
		}
		c.sub(a.val, depth+1)
	}
}

// heredocText is the body of an unquoted here-document when it holds only
// literal text (its $(...) parts are checked as commands on their own).
func heredocText(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			return "", false
		}
		b.WriteString(l.Value)
	}
	return b.String(), true
}

func isArithTest(op syntax.BinTestOperator) bool {
	switch op {
	case syntax.TsEql, syntax.TsNeq, syntax.TsLss, syntax.TsLeq, syntax.TsGtr, syntax.TsGeq:
		return true
	}
	return false
}

// arithm refuses arithmetic that reads variables: bash evaluates a
// variable's value as an expression, and a[$(cmd)] inside it runs cmd.
func (c *checker) arithm(x syntax.ArithmExpr, where string) {
	if x == nil || !c.p.Enabled() {
		return
	}
	syntax.Walk(x, func(n syntax.Node) bool {
		if c.done() {
			return false
		}
		switch n := n.(type) {
		case *syntax.ParamExp:
			c.note(refuse(RuleUndecidable, where, "arithmetic on a variable ($%s) evaluates its value as code; not allowed while a command policy is on", n.Param.Value))
		case *syntax.Word:
			if l := n.Lit(); l != "" && isName(l) {
				c.note(refuse(RuleUndecidable, where, "arithmetic on a variable (%s) evaluates its value as code; not allowed while a command policy is on", l))
			}
		}
		return true
	})
}

func isName(s string) bool {
	for i, r := range s {
		if r != '_' && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}

func (c *checker) assign(a *syntax.Assign) {
	if a == nil || a.Name == nil || (a.Naked && a.Value == nil) || !c.p.Enabled() {
		return
	}
	v := arg{static: true}
	if a.Value != nil {
		v = c.word(a.Value)
	}
	if a.Array != nil {
		for _, el := range a.Array.Elems {
			if el.Value != nil {
				if w := c.word(el.Value); w.static && hasEmbeddedCode(w.val) {
					v = w
				}
			}
		}
	}
	c.note(c.p.assignment(a.Name.Value, v.val, v.static))
}

// writeOps are redirections that create or change a file.
func writeOp(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
		syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
		return true
	}
	return false
}

func (c *checker) redirect(r *syntax.Redirect) {
	if r.Word == nil || r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc {
		return
	}
	w := c.word(r.Word)
	if r.Op == syntax.DplIn || r.Op == syntax.DplOut {
		if w.static && (w.val == "-" || isDigits(w.val)) {
			return
		}
	}
	if w.static {
		c.note(c.pathArg(w.val))
		return
	}
	if writeOp(r.Op) && c.p.Enabled() {
		c.note(refuse(RuleUndecidable, r.Op.String()+" "+w.src, "the redirection target is computed at run time, so the checker cannot tell which file it writes; write to a literal path"))
	}
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// arg is one command word: its value with quotes removed when it is known
// before the shell runs (static), and its source text.
type arg struct {
	val    string
	static bool
	src    string
}

func (c *checker) word(w *syntax.Word) arg {
	if staticWord(w) {
		if v, err := expand.Literal(c.expandCfg(), w); err == nil {
			return arg{val: v, static: true, src: v}
		}
	}
	// Only computed words need their source text, for messages.
	var b bytes.Buffer
	if c.printer == nil {
		c.printer = syntax.NewPrinter()
	}
	_ = c.printer.Print(&b, w)
	return arg{val: b.String(), src: b.String()}
}

func (c *checker) expandCfg() *expand.Config {
	if c.expand == nil {
		c.expand = &expand.Config{Env: expand.ListEnviron("HOME=" + c.p.home)}
	}
	return c.expand
}

// pathArg refuses a word naming a path under a protected directory. The
// working directory and each parent directory are resolved once per check;
// an argument itself costs one lstat.
func (c *checker) pathArg(v string) Decision {
	if len(c.p.protected) == 0 || v == "" {
		return allowed
	}
	abs := c.p.expandHome(v)
	if !filepath.IsAbs(abs) {
		if c.base == "" {
			if c.base, _ = absDir(c.cwd); c.base == "" {
				c.base = c.cwd
			}
		}
		abs = filepath.Join(c.base, abs)
	}
	abs = filepath.Clean(abs)
	if c.dirs == nil {
		c.dirs = map[string]string{}
	}
	dir := filepath.Dir(abs)
	real, ok := c.dirs[dir]
	if !ok {
		real = realPath(dir)
		c.dirs[dir] = real
	}
	real = filepath.Join(real, filepath.Base(abs))
	if st, err := os.Lstat(real); err == nil && st.Mode()&os.ModeSymlink != 0 {
		real = realPath(real)
	}
	if under(abs, c.p.protected) || under(real, c.p.protected) {
		return refuse(RuleProtected, v, "%s is under agentty's configuration or audit directory, which agents may not touch", abs)
	}
	return allowed
}

// staticWord reports whether the shell would turn w into exactly one known
// string: only literals and quotes, no expansions, globs or braces.
func staticWord(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?[") || (strings.Contains(p.Value, "{") && (strings.Contains(p.Value, ",") || strings.Contains(p.Value, ".."))) {
				return false
			}
		case *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

func clip(s string) string {
	const n = 200
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
