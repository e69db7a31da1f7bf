package editguard

// The edit guard (see doc.go): archive extraction.

import (
	"strings"

	"github.com/hookctl/hookctl/programs"
)

// extractRule: programs that unpack an archive write the names the archive holds.
//
// Why: `tar -xf dot.tar -C ~` or `unzip cfg.zip -d ~/.claude` replaces protected files with the
// archive's copies (issue 9's neighbours of cp and mv).
// What: tar (gtar, bsdtar) with -x, --extract or --get, unzip (but -l, -t, -v, -p, -Z, -z), and
// cpio -i/--extract write each named member under each -C / -d directory (the working directory
// when none), and an unnamed member there when no member is named (--strip-components and
// --transform make every name unknown): a protected path, or a directory that is protected or
// directly holds a protected file, is refused. tar -P/--absolute-names and cpio without
// --no-absolute-filenames write wherever the archive's names say, and are refused. What an
// archive holds is not read: an archive extracted into the project may rewrite its
// .claude/settings.json (TestKnownGaps).
// Test: TestArchives.
var extractRule = &rule{
	names: []string{"tar", "gtar", "bsdtar", "unzip", "cpio"},
	judge: judgeExtract,
}

var tarOpts = &optionSpec{valued: "fCTXbHKNgVLFI", long: []string{"--file", "--directory", "--files-from", "--exclude-from",
	"--exclude", "--blocking-factor", "--format", "--starting-file", "--newer", "--newer-mtime", "--listed-incremental",
	"--label", "--tape-length", "--info-script", "--new-volume-script", "--use-compress-program", "--transform", "--xform",
	"--owner", "--group", "--mode", "--mtime", "--strip-components", "--record-size", "--volno-file", "--rsh-command",
	"--suffix", "--backup", "--to-command", "--checkpoint-action", "--exclude-tag", "--exclude-tag-under",
	"--exclude-tag-all", "--occurrence", "--pax-option", "--quoting-style", "--index-file"}}

func judgeExtract(j *judge, c *invocation) *programs.Refusal {
	what := "`" + c.prog + "`"
	var dirs, members []word
	absolute, unknownNames := false, false
	switch c.prog {
	case "unzip":
		p := (&optionSpec{valued: "dP"}).parse(c.args)
		if p.has("-l", "-t", "-v", "-p", "-Z", "-z") || len(p.operands) == 0 {
			return nil
		}
		dirs, members = p.values("-d"), p.operands[1:]
	case "cpio":
		p := (&optionSpec{valued: "EFHIMORDcs", long: []string{"--file", "--format", "--pattern-file", "--directory",
			"--owner", "--message", "--rsh-command", "--block-size", "--io-size"}}).parse(c.args)
		extract := p.has("-i")
		for _, o := range p.opts {
			extract = extract || longIs(o.name, "--extract", 4)
			if longIs(o.name, "--no-absolute-filenames", 4) {
				unknownNames = true
			}
		}
		if !extract {
			return nil
		}
		if !unknownNames {
			return refuse(c.prog, hintAsk, "`cpio -i` writes wherever the archive's names say, absolute ones included; add --no-absolute-filenames")
		}
		dirs, members = p.values("-D", "--directory"), p.operands
	default:
		args := c.args
		if len(args) > 0 && args[0].known() && args[0].s != "" && !strings.HasPrefix(args[0].s, "-") {
			// Old-style options: `tar xzf a.tgz` is `tar -xzf a.tgz`.
			first := args[0]
			first.s = "-" + first.s
			args = append([]word{first}, args[1:]...)
		}
		p := tarOpts.parse(args)
		// An archive named HOST:PATH is on another machine, reached through rsh (GNU tar, unless
		// --force-local); options whose value is a command tar runs through the shell.
		local := false
		for _, o := range p.opts {
			local = local || longIs(o.name, "--force-local", 5)
		}
		for _, f := range p.values("-f", "--file") {
			if i := strings.IndexByte(f.s, ':'); i > 0 && !local && !strings.Contains(f.s[:i], "/") {
				return networkRefusal(c.prog, "`"+c.prog+" -f "+f.show()+"` (a remote archive)")
			}
		}
		for _, o := range p.opts {
			runs := o.name == "-I" || o.name == "-F" || longIs(o.name, "--use-compress-program", 4) ||
				longIs(o.name, "--info-script", 4) || longIs(o.name, "--new-volume-script", 4) || longIs(o.name, "--to-command", 5) ||
				longIs(o.name, "--rsh-command", 4)
			v := o.value
			if a, ok := strings.CutPrefix(v.s, "exec="); ok && longIs(o.name, "--checkpoint-action", 4) {
				runs, v.s = true, a
			}
			if runs {
				if r := j.line(c.prog, "`"+c.prog+" "+o.name+"`", v, c.st); r != nil {
					return r
				}
			}
		}
		extract := p.has("-x")
		for _, o := range p.opts {
			extract = extract || longIs(o.name, "--extract", 4) || o.name == "--get"
			absolute = absolute || o.name == "-P" || longIs(o.name, "--absolute-names", 4)
			unknownNames = unknownNames || longIs(o.name, "--strip-components", 4) || longIs(o.name, "--transform", 4) ||
				longIs(o.name, "--xform", 3)
			if o.name == "-O" || longIs(o.name, "--to-stdout", 5) || longIs(o.name, "--to-command", 5) {
				return nil // members go to standard output or a command, not to files
			}
		}
		if !extract {
			return nil
		}
		if absolute {
			return refuse(c.prog, hintAsk, "`%s -P` writes wherever the archive's names say, outside the directory too", c.prog)
		}
		dirs, members = p.values("-C", "--directory"), p.operands
	}
	if len(dirs) == 0 {
		dirs = []word{lit(".")}
	}
	if len(members) == 0 || unknownNames {
		members = []word{lit(unknown)}
	}
	for _, d := range dirs {
		for _, m := range members {
			m.s = strings.TrimLeft(m.s, "/") // tar and unzip strip a leading /
			out := joinName(d, lit("x"), false)
			out.s = strings.TrimSuffix(out.s, "x") + m.s
			if r := j.write(c.prog, what+" (extracting)", out, c.st, false); r != nil {
				return r
			}
		}
	}
	return nil
}
