package programs

import (
	"slices"
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
)

// The macOS readers: property lists (plutil), preferences (defaults) and launchd (launchctl).
// Each has verbs that write, and a parser that finds its verb anywhere among the words, so the
// rules name the reading verbs and refuse every other word that starts with `-`.

// plutil prints or checks property lists. Its parser scans every word for a verb, so a write
// verb anywhere (`plutil f -convert json`) rewrites the file in place.
//
// Why: trusty-mpm's own incident. `plutil -extract KEY json FILE` without `-o -` does not print
// the value: it overwrites FILE with it. -convert, -insert, -replace, -remove and -create write;
// -o PATH and -e EXT name where they write.
//
// What: `plutil -p FILE…`, `plutil -lint [-s] FILE…`, `plutil -extract KEYPATH FORMAT -o -
// [-r] FILE` (FORMAT xml1, binary1, json or raw), `plutil -type KEYPATH FILE`, `plutil -help`;
// files are plain words after the verb and may not start with `-` (but after `--`). The files of
// -p and -lint, any number of them, may be a glob (Files): every name it becomes starts with
// its literal directory (or ./), so it is never a verb, which plutil matches as a whole word.
//
// Test: TestPlutilNeverWrites (macos_test.go); deny/readers.txt.
var plutilRule = &Program{
	Name: "plutil", Summary: "print or check property lists (-p, -lint, -extract … -o -, -type; never -convert)", Files: true,
	BSD:    &BSD{Same: true, Note: "macOS only, with its own parser, which finds the verb anywhere among the words"},
	Custom: judgePlutil,
	Reads:  plutilReads,
}

// plutilWrites are plutil's verbs and options that write, named in refusals.
var plutilWrites = Refusals{
	{"-convert", "rewrites the file in another format"},
	{"-insert", "writes a value into the file"},
	{"-replace", "writes a value into the file"},
	{"-remove", "removes a value from the file"},
	{"-create", "writes a new file"},
	{"-e", "names the extension of a file it writes"},
}

func judgePlutil(args []Arg) *Refusal {
	for _, a := range args {
		if a.Pattern || a.Var && strings.HasPrefix(a.Value, "-") {
			return refuse("plutil", "shell syntax or a loop variable in `%s` is not allowed", clip.Short(a.Value))
		}
		if why, ok := plutilWrites.why(a.Value); ok {
			return refuse("plutil", "`%s` %s; plutil -p prints it", a.Value, why)
		}
	}
	if len(args) == 0 {
		return refuse("plutil", "needs a verb: -p, -lint, -extract … -o -, -type")
	}
	verb, rest := args[0].Value, args[1:]
	var files []Arg
	switch verb {
	case "-help":
		if len(rest) > 0 {
			return refuse("plutil", "`-help` takes nothing after it")
		}
		return nil
	case "-p", "-lint":
		files = rest
		if verb == "-lint" && len(files) > 0 && files[0].Value == "-s" {
			files = files[1:]
		}
	case "-type":
		if len(rest) < 2 || strings.HasPrefix(rest[0].Value, "-") || rest[0].Var {
			return refuse("plutil", "use plutil -type KEYPATH FILE")
		}
		files = rest[1:]
	case "-extract":
		if len(rest) < 2 || strings.HasPrefix(rest[0].Value, "-") || rest[0].Var ||
			!slices.Contains([]string{"xml1", "binary1", "json", "raw"}, rest[1].Value) {
			return refuse("plutil", "use plutil -extract KEYPATH xml1|binary1|json|raw -o - FILE")
		}
		out := false
		files = rest[2:]
		for len(files) > 0 && strings.HasPrefix(files[0].Value, "-") && files[0].Value != "--" {
			switch {
			case files[0].Value == "-r" || files[0].Value == "-s":
				files = files[1:]
			case files[0].Value == "-o" && len(files) > 1 && files[1].Value == "-":
				out, files = true, files[2:]
			default:
				return refuse("plutil", "`%s` is not allowed with -extract; only -o - (standard output), -r and -s", clip.Short(files[0].Value))
			}
		}
		if !out {
			return refuse("plutil", "-extract without `-o -` overwrites the file with the value it extracts (trusty-mpm's incident); add -o - to print it")
		}
	default:
		return refuse("plutil", "`%s` is not a reading verb; use -p, -lint, -extract … -o - or -type", clip.Short(verb))
	}
	if len(files) > 0 && files[0].Value == "--" {
		files = files[1:]
	} else {
		for _, f := range files {
			if strings.HasPrefix(f.Value, "-") {
				return refuse("plutil", "`%s` is not allowed here; plutil reads it as an option (write file names after --)", clip.Short(f.Value))
			}
		}
	}
	if len(files) == 0 {
		return refuse("plutil", "`%s` needs a file", verb)
	}
	if verb == "-extract" && len(files) != 1 {
		return refuse("plutil", "-extract reads one file")
	}
	for i, a := range args {
		if a.Glob && (verb != "-p" && verb != "-lint" || i < len(args)-len(files)) {
			return refuse("plutil", "a glob (`%s`) may stand only for the files of -p or -lint", clip.Short(a.Value))
		}
	}
	return nil
}

// plutilReads is every word after the verb's own values that plutil opens: the files.
func plutilReads(args []Arg) []string {
	var out []string
	for i, a := range args {
		if i == 0 || strings.HasPrefix(a.Value, "-") {
			continue
		}
		if (args[0].Value == "-extract" || args[0].Value == "-type") && i <= 2 {
			continue // the key path and the format
		}
		out = append(out, a.Value)
	}
	return out
}

// defaults reads macOS preferences. `defaults write`, `delete`, `import` and `rename` change
// them, and `export DOMAIN PATH` writes a file.
//
// What: `defaults [-currentHost | -host NAME] read [DOMAIN [KEY]]`, `read-type DOMAIN KEY`,
// `domains`, `find WORD`, `help`; DOMAIN a plain name, a plist path, -g, -globalDomain or
// `-app NAME`.
//
// Test: TestDefaultsReadOnly (macos_test.go); deny/readers.txt.
var defaultsRule = &Program{
	Name: "defaults", Summary: "read macOS preferences (read, read-type, domains, find)",
	BSD:    &BSD{Same: true, Note: "macOS only, with its own parser"},
	Custom: judgeDefaults,
}

func judgeDefaults(args []Arg) *Refusal {
	for _, a := range args {
		if a.Pattern || a.Var && strings.HasPrefix(a.Value, "-") {
			return refuse("defaults", "shell syntax or a loop variable in `%s` is not allowed", clip.Short(a.Value))
		}
	}
	i := 0
	switch {
	case i < len(args) && args[i].Value == "-currentHost":
		i++
	case i+1 < len(args) && args[i].Value == "-host" && !strings.HasPrefix(args[i+1].Value, "-"):
		i += 2
	}
	if i == len(args) {
		return refuse("defaults", "needs a verb: read, read-type, domains, find")
	}
	verb, rest := args[i].Value, args[i+1:]
	switch verb {
	case "write", "delete", "import", "rename", "export":
		return &Refusal{Program: "defaults", What: "`defaults " + verb + "` changes preferences or writes a file", Hint: "defaults read DOMAIN [KEY]"}
	}
	// A domain may be -g, -globalDomain or -app NAME; other words are plain.
	var words []string
	for j := 0; j < len(rest); j++ {
		v := rest[j].Value
		switch {
		case v == "-g" || v == "-globalDomain":
			words = append(words, v)
		case v == "-app" && j+1 < len(rest) && !strings.HasPrefix(rest[j+1].Value, "-"):
			words = append(words, v)
			j++
		case strings.HasPrefix(v, "-"):
			return refuse("defaults", "`%s` is not allowed", clip.Short(v))
		default:
			words = append(words, v)
		}
	}
	switch {
	case verb == "read" && len(words) <= 2, verb == "read-type" && len(words) == 2,
		verb == "domains" && len(words) == 0, verb == "find" && len(words) == 1, verb == "help" && len(words) == 0:
		return nil
	}
	return &Refusal{Program: "defaults", What: "only `defaults read [DOMAIN [KEY]]`, `read-type DOMAIN KEY`, `domains` and `find WORD` are allowed"}
}

// launchctl talks to launchd. Most of its verbs load, start, stop or change services
// (bootstrap, kickstart, kill, load, setenv, …); list and print only report.
//
// What: `launchctl list [LABEL]`, `launchctl print TARGET`, `launchctl print-disabled DOMAIN`,
// `launchctl blame SERVICE`, `launchctl version`; every target a plain word such as gui/501,
// system or gui/501/com.example.agent; no options.
//
// Test: TestLaunchctlReadOnly (macos_test.go); deny/readers.txt.
var launchctlRule = &Program{
	Name: "launchctl", Summary: "report launchd services (list, print, print-disabled, blame, version)", NamesOnly: true,
	BSD:    &BSD{Same: true, Note: "macOS only, with its own parser"},
	Custom: judgeLaunchctl,
}

func judgeLaunchctl(args []Arg) *Refusal {
	for _, a := range args {
		if a.Pattern || a.Var || strings.HasPrefix(a.Value, "-") {
			return refuse("launchctl", "`%s`: launchctl takes plain words here, no options", clip.Short(a.Value))
		}
	}
	n := len(args) - 1
	if n >= 0 {
		switch args[0].Value {
		case "list":
			if n <= 1 {
				return nil
			}
		case "print", "print-disabled", "blame":
			if n == 1 {
				return nil
			}
		case "version":
			if n == 0 {
				return nil
			}
		}
	}
	return &Refusal{Program: "launchctl", What: "only `launchctl list [LABEL]`, `print TARGET`, `print-disabled DOMAIN`, `blame SERVICE` and `version` are allowed; other verbs load, start or change services",
		Hint: "e.g. launchctl print gui/501 or launchctl list"}
}
