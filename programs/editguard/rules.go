package editguard

// The edit guard (see doc.go): the rules.

import (
	"path"
	"strings"

	"github.com/hookctl/hookctl/programs"
	"mvdan.cc/sh/v3/syntax"
)

// rule is the edit guard's rule for one family of programs.
type rule struct {
	// names are the program names (base names) the rule is for; a name ending in "." matches
	// every name with that prefix (mkfs. matches mkfs.ext4).
	names []string
	// match, when set, says instead which programs the rule is for, from a table package
	// programs keeps (the network programs, the wrappers): a copy of its names would be made
	// when the package starts, in every hook process.
	match func(name string) bool
	judge func(j *judge, c *invocation) *programs.Refusal
}

// ruleTable is the exclude list's table: program → rule. A program not here runs. It is an array
// the compiler lays out; lookupRule reads it through rules.
var ruleTable = [...]*rule{
	privilegeRule, diskRule, ddRule,
	rmRule, permissionsRule, fileWritesRule, copyRule, extractRule, teeRule, sortRule, goBuildRule, inPlaceRule, networkRule,
	gitRule, hookctlRule, claudeRule,
	shellRule, evalRule, trapRule, cdRule, varsRule, declRule,
	findRule, tmuxRule, screenRule, wrapperRule,
}

// rules is ruleTable, set in init because the rules that re-judge a command (sh -c, eval, the
// wrappers) refer back to lookupRule: initialised from the table, it would depend on itself.
// Slicing the array allocates nothing.
var rules []*rule

func init() { rules = ruleTable[:] }

// lookupRule finds the rule for a program. A linear search of a short table costs less than
// building a map on every hook start.
func lookupRule(name string) *rule {
	for _, r := range rules {
		if r.match != nil && r.match(name) {
			return r
		}
		for _, n := range r.names {
			if n == name || (strings.HasSuffix(n, ".") && strings.HasPrefix(name, n)) {
				return r
			}
		}
	}
	return nil
}

// privilegeRule: programs that run a command as another user.
//
// Why: an agent with root can do anything, and a password prompt would hang the session.
// What: sudo, doas, su, runuser, pkexec and run0 are refused whatever their arguments, and so
// is any wrapper the wrapper table marks privileged.
// Test: TestPrivilegeAndDisk.
var privilegeRule = &rule{
	names: []string{"sudo", "doas", "su", "runuser", "pkexec", "run0"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		return refuse(c.prog, hintAsk, "`%s` runs a command with other privileges", c.prog)
	},
}

// diskRule: programs that format, wipe or repartition a disk.
//
// Why: one wrong device name destroys a file system, and nothing brings it back.
// What: mkfs and every mkfs.*, mke2fs, mkswap, mkdosfs, mkntfs, wipefs, shred, blkdiscard,
// fdisk, sfdisk, cfdisk, gdisk, sgdisk and parted are refused whatever their arguments (their
// read-only forms, such as fdisk -l, are the user's to run too).
// Test: TestPrivilegeAndDisk.
var diskRule = &rule{
	names: []string{"mkfs", "mkfs.", "mke2fs", "mkswap", "mkdosfs", "mkntfs", "wipefs", "shred", "blkdiscard",
		"fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		return refuse(c.prog, hintAsk, "`%s` formats, wipes or repartitions a disk, or destroys a file", c.prog)
	},
}

// ddRule: dd's output file.
//
// Why: `dd if=image of=/dev/sda` overwrites a disk; dd of=~/.bashrc overwrites a protected file.
// What: of= naming a device (any /dev path but null, zero, the std streams, ttys, fd/ and shm/)
// or a protected path is refused; ~ and $HOME in it are resolved.
// Test: TestPrivilegeAndDisk, TestProtectedWrites.
var ddRule = &rule{
	names: []string{"dd"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		for _, a := range c.args {
			v, ok := strings.CutPrefix(a.s, "of=")
			if !ok {
				continue
			}
			w := a
			w.s = v
			if w.glob >= 0 {
				w.glob -= 3
			}
			if v == "~" || strings.HasPrefix(v, "~/") { // bash expands ~ after = in dd's operands
				if h, ok := c.st.get("HOME"); ok {
					w.s = h + v[1:]
				} else {
					w.s = unknown + v[1:]
				}
			}
			if r := j.write(c.prog, "`dd of=`", w, c.st, false); r != nil {
				return r
			}
		}
		return nil
	},
}

// rmRule: recursive deletes that reach outside the project.
//
// Why: `rm -rf ~/`, `rm -rf / tmp/x` (a stray space), `rm -rf $UNSET/` and `cd /tmp && rm -rf *`
// are the classic unrecoverable accidents.
// What: rm with -r, -R or --recursive (in any cluster or abbreviation) is refused when a target
// resolves, lexically and from the directory the command runs in, outside the project, to the
// project itself, to a directory holding it, to the project's .git, or to a glob that matches
// every entry of the project or anything outside it; or when a target cannot be resolved (a
// variable, a substitution, ~user, a directory after an unresolvable cd). A word that may expand
// to -r makes the command recursive for targets known to be outside. Any rm, recursive or not,
// of a protected path (or, recursive, of a directory holding one) is refused. A variable
// assigned $(mktemp …) may be deleted.
// Test: TestRm.
var rmRule = &rule{
	names: []string{"rm"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		p := (&optionSpec{}).parse(c.args)
		recursive := false
		for _, o := range p.opts {
			if o.name == "-r" || o.name == "-R" || longIs(o.name, "--recursive", 3) {
				recursive = true
			}
		}
		for _, t := range p.operands {
			if t.s == "" && t.known() {
				continue // rm "" fails harmlessly
			}
			if recursive || p.maybeOpt {
				k := j.howFar(t, c.st)
				if k != reachInside && (recursive || k != reachUnknown) {
					flag := "-r"
					if !recursive {
						flag = "with a word that may be -r"
					}
					return refuse(c.prog, hintRm, "recursive rm (`rm %s`) of `%s`: the path %s", flag, t.show(), reachWords[k])
				}
			}
			if r := j.write(c.prog, "`rm`", t, c.st, recursive); r != nil {
				return r
			}
		}
		return nil
	},
}

// permissionsRule: recursive permission and owner changes outside the project.
//
// Why: `chmod -R 777 ~` or `chown -R user /` breaks ssh, sudo and the system, and the old modes
// are not recorded anywhere.
// What: chmod, chown and chgrp with -R or --recursive on a target outside the project, a
// directory holding it, or a path that cannot be resolved are refused; the project itself and
// paths inside it are allowed. Any of them on a protected path is refused.
// Test: TestRm (chmod rows), TestProtectedWrites.
var permissionsRule = &rule{
	names: []string{"chmod", "chown", "chgrp"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		args := c.args
		if c.prog == "chmod" {
			// -w, -x, -rwx are modes, not options.
			args = make([]word, 0, len(c.args))
			for _, a := range c.args {
				if len(a.s) > 1 && a.s[0] == '-' && strings.Trim(a.s[1:], "rwxXst") == "" {
					a.s = "=" + a.s // an operand now; the value is not used
				}
				args = append(args, a)
			}
		}
		p := (&optionSpec{long: []string{"--reference"}}).parse(args)
		recursive := p.has("-R")
		for _, o := range p.opts {
			recursive = recursive || longIs(o.name, "--recursive", 5)
		}
		targets := p.operands
		if len(p.values("--reference")) == 0 && len(targets) > 0 {
			targets = targets[1:] // the mode or owner
		}
		for _, t := range targets {
			if recursive {
				switch k := j.howFar(t, c.st); k {
				case reachParent, reachOutside, reachUnknown:
					return refuse(c.prog, hintAsk, "recursive `%s -R` of `%s`: the path %s", c.prog, t.show(), reachWords[k])
				}
			}
			if r := j.write(c.prog, "`"+c.prog+"`", t, c.st, recursive); r != nil {
				return r
			}
		}
		return nil
	},
}

// fileWritesRule: programs that create, change or remove the files named as operands.
//
// Why: `truncate -s0 ~/.bashrc`, `touch ~/.claude/settings.json`, `unlink` of hookctl's state:
// each changes a file the agent may never write.
// What: a protected operand (after the options with values are skipped) is refused for unlink,
// truncate, touch, mkdir, rmdir and mkfifo.
// Test: TestProtectedWrites.
var fileWritesRule = &rule{
	names: []string{"unlink", "truncate", "touch", "mkdir", "rmdir", "mkfifo"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		p := fileWriteOpts(c.prog).parse(c.args)
		for _, t := range p.operands {
			if r := j.write(c.prog, "`"+c.prog+"`", t, c.st, false); r != nil {
				return r
			}
		}
		return nil
	},
}

func fileWriteOpts(prog string) *optionSpec {
	switch prog {
	case "truncate":
		return &optionSpec{valued: "sr", long: []string{"--size", "--reference"}}
	case "touch":
		return &optionSpec{valued: "drt", long: []string{"--date", "--reference", "--time"}}
	case "mkdir", "mkfifo":
		return &optionSpec{valued: "m", long: []string{"--mode"}}
	}
	return &optionSpec{}
}

// copyRule: programs that write a destination named by their operands.
//
// Why: `cp my.json ~/.claude/settings.json`, `ln -sf x ~/.bashrc`, `mv ~/.config/hookctl /tmp`
// and `rsync -a conf/ ~/.claude/` each replace or remove a protected file.
// What: for cp, mv, install, ln and rsync the paths written are the destination and, for each
// source, the destination joined with the source's name (-t DIR and a one-operand ln count);
// any that is protected is refused, and so is a recursive copy (-r, -R, -a, rsync's -a) into a
// directory that holds a protected path. mv (and rsync --remove-source-files) also removes its
// sources, so a protected source or a source holding one is refused. rsync remote paths are
// skipped. A link is a way to write what it names (issue 9: `ln -s ~/.claude/settings.json x`
// then Write x): ln, link, cp -l/-s (--link, --symbolic-link) and rsync --link-dest are refused
// when a source is protected or holds a protected path; a relative symbolic link's source is
// read from the link's directory as well as the working directory.
// Test: TestProtectedWrites, TestLinks.
var copyRule = &rule{
	names: []string{"cp", "mv", "install", "ln", "link", "rsync"},
	judge: judgeCopy,
}

// links judges what a command links to: the sources of ln, link, cp -l and cp -s, and the
// directories rsync --link-dest hard-links from (copyRule).
func (j *judge) links(c *invocation, p parsedArgs, dest word, srcs []word) *programs.Refusal {
	what := "`" + c.prog + "`"
	for _, d := range p.values("--link-dest") {
		if r := j.linkTo(c.prog, "`rsync --link-dest`", d, c.st); r != nil {
			return r
		}
	}
	symbolic := p.has("-s")
	linking := c.prog == "ln" || c.prog == "link"
	if c.prog == "cp" {
		linking = symbolic || p.has("-l")
		for _, o := range p.opts {
			hard, soft := longIs(o.name, "--link", 4), longIs(o.name, "--symbolic-link", 4)
			linking, symbolic = linking || hard || soft, symbolic || soft
		}
	}
	if !linking {
		return nil
	}
	for _, s := range srcs {
		if paths, ok := j.resolve(s, c.st); j.isHookctl(s) && (!ok || j.isBinary(paths)) {
			continue // a copy of hookctl's binary: copiesBinary says so, after the rule
		}
		if r := j.linkTo(c.prog, what, s, c.st); r != nil {
			return r
		}
		if !symbolic || !s.known() || path.IsAbs(s.s) || !dest.known() {
			continue
		}
		// A relative symbolic link is read from where the link is: the destination's directory,
		// or the destination itself when it is a directory.
		for _, from := range []string{path.Dir(dest.s), dest.s} {
			if r := j.linkTo(c.prog, what, lit(path.Join(from, s.s)), c.st); r != nil {
				return r
			}
		}
	}
	return nil
}

func copyOpts(prog string) *optionSpec {
	switch prog {
	case "install":
		return &optionSpec{valued: "mogSt", long: []string{"--mode", "--owner", "--group", "--suffix", "--target-directory", "--strip-program"}}
	case "rsync":
		return rsyncOpts
	}
	return &optionSpec{valued: "St", long: []string{"--suffix", "--target-directory"}}
}

var rsyncOpts = &optionSpec{valued: "eTfBM@", long: []string{"--rsh", "--rsync-path", "--filter", "--exclude", "--include",
	"--exclude-from", "--include-from", "--files-from", "--temp-dir", "--partial-dir", "--backup-dir", "--suffix",
	"--compare-dest", "--copy-dest", "--link-dest", "--log-file", "--log-file-format", "--out-format",
	"--password-file", "--port", "--sockopts", "--bwlimit", "--timeout", "--contimeout", "--chmod", "--chown",
	"--usermap", "--groupmap", "--max-size", "--min-size", "--max-delete", "--block-size", "--modify-window",
	"--iconv", "--checksum-choice", "--compress-choice", "--compress-level", "--skip-compress", "--info",
	"--debug", "--outbuf", "--remote-option", "--write-batch", "--only-write-batch", "--read-batch",
	"--protocol", "--address", "--stop-after", "--stop-at", "--max-alloc", "--copy-as"}}

func judgeCopy(j *judge, c *invocation) *programs.Refusal {
	if c.prog == "rsync" && networkArgs(c.prog, c.args) {
		return networkRefusal(c.prog, "rsync to or from a host")
	}
	p := copyOpts(c.prog).parse(c.args)
	what := "`" + c.prog + "`"
	recursive := p.has("-r", "-R", "-a")
	for _, o := range p.opts {
		recursive = recursive || longIs(o.name, "--recursive", 5) || longIs(o.name, "--archive", 4) ||
			(c.prog == "rsync" && (o.name == "--mirror" || strings.HasPrefix(o.name, "--del")))
	}
	ops := p.operands
	if c.prog == "rsync" {
		kept := ops[:0:0]
		for _, o := range ops {
			if !remotePath(o.s) {
				kept = append(kept, o)
			}
		}
		if len(kept) != len(ops) && (len(ops) == 0 || remotePath(ops[len(ops)-1].s)) {
			// The destination is remote; only --remove-source-files touches local files.
			if p.has("--remove-source-files") {
				for _, s := range kept {
					if r := j.write(c.prog, what+" (removing its sources)", s, c.st, true); r != nil {
						return r
					}
				}
			}
			return nil
		}
		ops = kept
	}
	if c.prog == "install" && p.has("-d") {
		for _, d := range ops {
			if r := j.write(c.prog, what, d, c.st, false); r != nil {
				return r
			}
		}
		return nil
	}
	var dest word
	var srcs []word
	if td := p.values("-t", "--target-directory"); len(td) > 0 {
		dest, srcs = td[len(td)-1], ops
	} else if len(ops) >= 2 {
		dest, srcs = ops[len(ops)-1], ops[:len(ops)-1]
	} else if len(ops) == 1 && c.prog == "ln" {
		dest, srcs = lit("."), ops
	} else {
		return nil
	}
	if r := j.write(c.prog, what, dest, c.st, recursive && p.has("-T", "--no-target-directory")); r != nil {
		return r
	}
	if r := j.links(c, p, dest, srcs); r != nil {
		return r
	}
	for _, s := range srcs {
		if c.prog == "mv" || p.has("--remove-source-files") {
			if r := j.write(c.prog, what+" (moving its source away)", s, c.st, true); r != nil {
				return r
			}
		}
		if p.has("-T", "--no-target-directory") {
			continue
		}
		into := joinName(dest, s, c.prog == "rsync")
		if r := j.write(c.prog, what, into, c.st, recursive); r != nil {
			return r
		}
	}
	return nil
}

// remotePath reports whether an rsync operand names another host: host:path or rsync://.
func remotePath(s string) bool {
	if strings.HasPrefix(s, "rsync://") {
		return true
	}
	i := strings.IndexByte(s, ':')
	return i > 0 && !strings.Contains(s[:i], "/")
}

// joinName returns the path a copy of src into the directory dest writes: dest/name-of-src.
// For rsync a source ending in / copies its contents, so the path is dest itself.
func joinName(dest, src word, contents bool) word {
	s := strings.TrimRight(src.s, "/")
	name := s[strings.LastIndexByte(s, '/')+1:]
	if (contents && strings.HasSuffix(src.s, "/")) || name == "." || s == "" {
		return dest
	}
	if src.inside {
		name = unknown
	}
	out := word{s: strings.TrimRight(dest.s, "/") + "/" + name, glob: -1}
	if dest.glob >= 0 {
		out.glob = dest.glob
	} else if src.glob >= 0 && strings.ContainsAny(name, "*?[") {
		out.glob = len(out.s) - len(name) + strings.IndexAny(name, "*?[")
	}
	return out
}

// teeRule: tee and sponge write their operands.
//
// Why: `echo x | tee -a ~/.bashrc` is the usual way to append to a file from a pipeline.
// What: a protected or device operand of tee or sponge is refused.
// Test: TestProtectedWrites.
var teeRule = &rule{
	names: []string{"tee", "sponge"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		p := (&optionSpec{}).parse(c.args)
		for _, t := range p.operands {
			if r := j.write(c.prog, "`"+c.prog+"`", t, c.st, false); r != nil {
				return r
			}
		}
		return nil
	},
}

// sortRule: sort -o writes a file.
//
// Why: `sort -o ~/.zshrc ~/.zshrc` rewrites a protected file.
// What: a protected value of -o or --output is refused.
// Test: TestProtectedWrites.
var sortRule = &rule{
	names: []string{"sort"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		p := (&optionSpec{valued: "kotST", long: []string{"--key", "--output", "--field-separator",
			"--temporary-directory", "--buffer-size", "--compress-program", "--files0-from", "--parallel", "--batch-size",
			"--random-source"}}).parse(c.args)
		for _, o := range p.values("-o", "--output") {
			if r := j.write(c.prog, "`sort -o`", o, c.st, false); r != nil {
				return r
			}
		}
		return nil
	},
}

// goBuildRule: go build -o writes the binary where it is told.
//
// Why: `go build -o ~/.local/bin/hookctl ./cmd/hookctl` replaces the installed hook.
// What: a protected value of -o (either form, one or two dashes) is refused.
// Test: TestProtectedWrites.
var goBuildRule = &rule{
	names: []string{"go"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		for i, a := range c.args {
			if !strings.HasPrefix(a.s, "-") {
				continue
			}
			name, val, has := strings.Cut(strings.TrimPrefix(a.s[1:], "-"), "=")
			if name != "o" {
				continue
			}
			out := lit(val)
			if !has {
				if i+1 >= len(c.args) {
					return nil
				}
				out = c.args[i+1]
			}
			if r := j.write(c.prog, "`go build -o`", out, c.st, false); r != nil {
				return r
			}
		}
		return nil
	},
}

// inPlaceRule: sed -i and perl -i edit their file operands.
//
// Why: `sed -i '/hookctl/d' ~/.bashrc` removes the hook from a protected file.
// What: with -i (attached suffix or cluster included) or --in-place, a protected file operand
// is refused. sed's script is the first operand unless -e, -f or their long forms give it.
// Test: TestProtectedWrites.
var inPlaceRule = &rule{
	names: []string{"sed", "perl"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		var p parsedArgs
		var scripted bool
		if c.prog == "sed" {
			p = (&optionSpec{valued: "efl", optional: "i", long: []string{"--expression", "--file", "--line-length"}}).parse(c.args)
			scripted = p.has("-e", "-f", "--expression", "--file")
		} else {
			p = (&optionSpec{valued: "eE", optional: "iIMmlx0CdDF"}).parse(c.args)
			scripted = p.has("-e", "-E")
		}
		inPlace := p.has("-i")
		for _, o := range p.opts {
			inPlace = inPlace || longIs(o.name, "--in-place", 4)
		}
		if !inPlace {
			return nil
		}
		files := p.operands
		if !scripted && len(files) > 0 {
			files = files[1:]
		}
		for _, f := range files {
			if r := j.write(c.prog, "`"+c.prog+" -i`", f, c.st, false); r != nil {
				return r
			}
		}
		return nil
	},
}

// downloadWrites: curl and wget writing a file (networkRule refuses them anyway; a write to a
// protected file is named first, as what matters more).
//
// Why: `curl -o ~/.claude/settings.json URL` replaces the settings with whatever the URL serves.
// What: curl's -o, --output, -D, --dump-header, -c, --cookie-jar, --trace, --trace-ascii,
// --stderr, --libcurl and --etag-save, curl's --output-dir, and wget's -O, -o, -a, -P and their
// long forms, naming a protected path (or a protected directory) are refused.
// Test: TestProtectedWrites.
func downloadWrites(j *judge, c *invocation) *programs.Refusal {
	var p parsedArgs
	var files, dirs []word
	if c.prog == "curl" {
		p = (&optionSpec{valued: "AbcCdDeEFHKmoPQrtTuUwxXyYz", long: []string{"--output", "--dump-header", "--cookie-jar",
			"--trace", "--trace-ascii", "--stderr", "--libcurl", "--etag-save", "--output-dir", "--data", "--data-raw",
			"--data-binary", "--data-urlencode", "--header", "--user-agent", "--user", "--url", "--cookie", "--form",
			"--request", "--config", "--max-time", "--connect-timeout", "--proxy", "--referer", "--range",
			"--upload-file", "--write-out", "--retry", "--cacert", "--cert", "--key", "--resolve", "--json"}}).parse(c.args)
		files = p.values("-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii",
			"--stderr", "--libcurl", "--etag-save")
		dirs = p.values("--output-dir")
	} else {
		p = (&optionSpec{valued: "OoaPeDRAIXiBtTwQUYl", long: []string{"--output-document", "--output-file",
			"--append-output", "--directory-prefix", "--save-cookies", "--execute", "--input-file", "--user-agent",
			"--header", "--tries", "--timeout", "--wait", "--user", "--password"}}).parse(c.args)
		files = p.values("-O", "--output-document", "-o", "--output-file", "-a", "--append-output", "--save-cookies")
		dirs = p.values("-P", "--directory-prefix")
	}
	for _, f := range files {
		if f.s == "-" {
			continue
		}
		if r := j.write(c.prog, "`"+c.prog+"`", f, c.st, false); r != nil {
			return r
		}
	}
	for _, d := range dirs {
		if r := j.write(c.prog, "`"+c.prog+"`", joinName(d, lit(unknown), false), c.st, false); r != nil {
			return r
		}
		if paths, ok := j.resolve(d, c.st); ok {
			for _, x := range paths {
				if ProtectedPath(x, j.ctx) {
					return refuse(c.prog, hintProtected, "`%s` writes into `%s`, which is protected (%s)", c.prog, d.show(), protectedWhat)
				}
			}
		}
	}
	return nil
}

// hookctlRule: hookctl itself.
//
// Why: hookctl's guards are the user's choice. An agent that runs `hookctl readonly off` or
// `hookctl uninstall` has switched off its own guard; even `hookctl readonly on` is a decision
// about the session that the user makes.
// `hookctl run` is the user's too: it starts an agent run with the user's model credential.
// `hookctl audit` is the user's too: the audit keeps what servers sent (error text, what the
// injection heuristics matched, and with audit.keep_raw the raw page), which the quarantine
// keeps from the agent.
// What: hookctl (by any path) is allowed only with a read-only verb: check, readonly status,
// retrieve, version, statusline, doctor, help, --help, -h, --version, or no arguments.
// Test: TestHookctlAndClaude.
var hookctlRule = &rule{
	names: []string{"hookctl"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		j.runsGuard = true
		if readOnlyVerb(values(c.args)) {
			return nil
		}
		verb := c.args[0].s
		if verb == "audit" {
			return refuse(c.prog, "ask the user to look at `hookctl audit` if it matters",
				"`hookctl audit` shows what servers sent, which the quarantine keeps from the agent; it is the user's to read")
		}
		if verb == "run" {
			// Not a change to the guard, but an agent run of the user's own: it would spend the
			// user's model credential (the broker adds it) on a prompt the agent chose.
			return refuse(c.prog, "ask the user to start the run",
				"`hookctl run` starts an agent run with the user's model credential; only the user may start one")
		}
		shown := c.args[0].show()
		if verb == "readonly" && len(c.args) > 1 {
			shown += " " + c.args[1].show()
		}
		return refuse(c.prog, "ask the user to run `hookctl "+shown+"`",
			"`hookctl %s` changes hookctl's guard or installation; only the user may run it", shown)
	},
}

// claudeRule: a nested claude that would run without the user's settings or permission checks.
//
// Why: `claude --dangerously-skip-permissions -p …` runs a second agent with no guard at all;
// --bare, --safe-mode and --settings start it without the user's settings (and so without
// hookctl's hook).
// What: claude with --bare, --safe-mode, --settings (either form), --dangerously-skip-permissions,
// --allow-dangerously-skip-permissions, or --permission-mode bypassPermissions (either form, or
// a value that is not a literal) is refused.
// Test: TestHookctlAndClaude.
var claudeRule = &rule{
	names: []string{"claude"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		j.runsGuard = true
		for i, a := range c.args {
			name, val, has := strings.Cut(a.s, "=")
			switch {
			case containsString(claudeUnsafe, name):
				return refuse(c.prog, hintAsk, "`claude %s` starts Claude Code without the user's settings or permission checks", name)
			case name == "--permission-mode":
				v := word{s: val, glob: -1}
				if !has && i+1 < len(c.args) {
					v = c.args[i+1]
				}
				if strings.EqualFold(v.s, "bypassPermissions") || !v.known() {
					return refuse(c.prog, hintAsk, "`claude --permission-mode %s` starts Claude Code without permission checks", v.show())
				}
			}
		}
		return nil
	},
}

// shellRule: sh -c STRING and its relatives.
//
// Why: `bash -c 'rm -rf ~'` hides a command in a string.
// What: for sh, bash, zsh, dash, ksh, mksh, ash and fish with -c (alone or in a cluster such as
// -lc, -ec), the first operand is parsed (as zsh for zsh, bash otherwise) and judged in a new
// shell; a string that is not a literal is refused. A script file operand is not opened.
// Test: TestRecursion.
var shellRule = &rule{
	names: shellNames,
	judge: func(j *judge, c *invocation) *programs.Refusal {
		code := false
		for i := 0; i < len(c.args); i++ {
			a := c.args[i]
			v := a.s
			switch {
			case !code && a.startsUnknown():
				return nil // a script path or options we cannot see; the file is not opened anyway
			case v == "--" || v == "-":
				continue
			case strings.HasPrefix(v, "--"):
				if v == "--rcfile" || v == "--init-file" {
					i++
				}
				if v == "--command" { // fish
					code = true
				}
			case len(v) > 1 && (v[0] == '-' || v[0] == '+'):
				if strings.IndexByte(v, 'c') >= 0 {
					code = true
				}
				if strings.ContainsAny(v[1:], "oO") {
					i++
				}
			default:
				if !code {
					return nil // a script file
				}
				if !a.known() {
					return refuse(c.prog, hintLiteral, "`%s -c` runs a string that is not a literal (`%s`), so it cannot be judged", c.prog, a.show())
				}
				lang := syntax.LangBash
				if c.prog == "zsh" {
					lang = syntax.LangZsh
				}
				return j.script(v, c.st.child(), lang)
			}
		}
		return nil
	},
}

var shellNames = []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"}

// evalRule: eval runs its arguments, joined, as shell code in the current shell.
//
// Why: `eval "rm -rf $HOME"` hides a command in a string.
// What: eval's literal arguments are joined with spaces, parsed and judged in the current
// shell's state; eval of anything that is not a literal (`eval "$(curl …)"`, `eval $cmd`) is
// refused.
// Test: TestRecursion.
var evalRule = &rule{
	names: []string{"eval"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		parts := make([]string, 0, len(c.args))
		for _, a := range c.args {
			if !a.known() {
				return refuse(c.prog, hintLiteral, "`eval` of a string that is not a literal (`%s`) cannot be judged", a.show())
			}
			parts = append(parts, a.s)
		}
		return j.script(strings.Join(parts, " "), c.st, syntax.LangBash)
	},
}

// trapRule: trap's action is shell code run later.
//
// Why: `trap 'rm -rf ~' EXIT` runs the delete when the script ends.
// What: a literal action is parsed and judged; an action that is not a literal is refused.
// Test: TestRecursion.
var trapRule = &rule{
	names: []string{"trap"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		if len(c.args) < 2 || strings.HasPrefix(c.args[0].s, "-") {
			return nil // trap -p, trap -l, trap SIG (reset)
		}
		a := c.args[0]
		if !a.known() {
			return refuse(c.prog, hintLiteral, "`trap` with an action that is not a literal (`%s`) cannot be judged", a.show())
		}
		return j.script(a.s, c.st.clone(), syntax.LangBash)
	},
}

// cdRule: cd, pushd and popd change the directory later relative paths resolve against.
//
// Why: `cd /tmp && rm -rf x` deletes /tmp/x; `cd .. && rm -rf *` deletes the project's siblings.
// What: a literal cd DIR (absolute, relative, ~, $HOME) moves the working directory; cd with no
// operand goes home; cd -, popd, pushd without a directory and any operand that cannot be
// resolved make it unknown, so that a later recursive rm of a relative path is refused. CDPATH is
// not consulted. Never refuses by itself.
// Test: TestRm (cd rows).
var cdRule = &rule{
	names: []string{"cd", "pushd", "popd"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		p := (&optionSpec{}).parse(c.args)
		var target word
		switch {
		case c.prog == "popd":
			c.st.dirs = nil
			return nil
		case len(p.operands) == 0 && c.prog == "cd":
			h, ok := c.st.get("HOME")
			target = lit(h)
			if !ok {
				target = unknownWord
			}
		case len(p.operands) == 1:
			target = p.operands[0]
		default:
			c.st.dirs = nil
			return nil
		}
		if target.s == "-" || strings.HasPrefix(target.s, "+") || target.glob >= 0 {
			c.st.dirs = nil
			return nil
		}
		paths, ok := j.resolve(target, c.st)
		if !ok {
			paths = nil
		}
		c.st.dirs = paths
		return nil
	},
}

// varsRule: builtins that assign or unset variables.
//
// Why: `d=build; read d; rm -rf $d` must not judge $d as build; `unset HOOKCTL_HOME`,
// `read HOOKCTL_HOME` and `printf -v HOOKCTL_X` change hookctl's variables (envRule).
// What: the names read, mapfile, readarray, printf -v, getopts and unset assign or unset become
// unknown, and each is judged by envRule: read's operands and -a's value, mapfile's and
// readarray's array, printf's -v value, getopts' second operand, unset's operands (not with -f).
// Test: TestRecursion, TestEnvironment.
var varsRule = &rule{
	names: []string{"read", "mapfile", "readarray", "printf", "getopts", "unset"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		var names []word
		switch c.prog {
		case "read":
			p := (&optionSpec{valued: "adinNptu"}).parse(c.args)
			names = append(p.values("-a"), p.operands...)
		case "mapfile", "readarray":
			p := (&optionSpec{valued: "dnOsuCc"}).parse(c.args)
			names = p.operands
		case "printf":
			p := (&optionSpec{valued: "v"}).parse(c.args)
			names = p.values("-v")
		case "getopts":
			if p := (&optionSpec{}).parse(c.args); len(p.operands) > 1 {
				names = p.operands[1:2]
			}
		case "unset":
			p := (&optionSpec{}).parse(c.args)
			if !p.has("-f") {
				names = p.operands
			}
		}
		for _, a := range names {
			name := wordName(a)
			if name == "" {
				continue
			}
			c.st.set(name, "", false)
			if r := j.setsVariable(name, "`"+c.prog+"` of"); r != nil {
				return r
			}
		}
		return nil
	},
}

func isName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}
