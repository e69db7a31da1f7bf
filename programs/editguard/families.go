package editguard

// The edit guard (see doc.go): the families the user's config may turn off, and the rules for
// data that lives outside the project (issue 15).

import (
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/programs"

	"mvdan.cc/sh/v3/syntax"
)

// Family is a group of the guard's rules that the user's config may turn off
// ([edit] allow = ["databases"]). The rules that protect hookctl, Claude Code's settings, the
// shell's start-up files, the disks and the project's history are in no family: they cannot
// be turned off.
type Family struct {
	Name, Refuses string
}

// The families, each refused by default.
const (
	familyCredentials    = "credentials"
	familyGitFiles       = "git-files"
	familySync           = "sync"
	familyCloud          = "cloud"
	familyContainers     = "containers"
	familyKubernetes     = "kubernetes"
	familyInfrastructure = "infrastructure"
	familyDatabases      = "databases"
)

// Families lists them for the config's check and the documentation (docs/edit-guard.md).
var Families = []Family{
	{familyCredentials, "writes to ~/.ssh, ~/.git-credentials, ~/.netrc, ~/.aws/credentials and the other credential stores"},
	{familyGitFiles, "git checkout/restore of named files, which overwrite their uncommitted changes (whole-tree forms are always refused)"},
	{familySync, "rsync --delete into a directory outside the project; rclone sync, purge and delete"},
	{familyCloud, "aws, gcloud, gsutil and az commands that delete or terminate (s3 rm, s3 rb, delete-*, terminate-*)"},
	{familyContainers, "docker/podman rm -f, rmi -f, system/volume/image prune, volume rm, compose down -v"},
	{familyKubernetes, "kubectl delete and drain, helm uninstall"},
	{familyInfrastructure, "terraform/tofu destroy, apply -destroy, state rm; pulumi destroy"},
	{familyDatabases, "dropdb, mysqladmin drop, redis-cli flushall, and DROP, TRUNCATE or an unqualified DELETE sent through a database client"},
}

// IsFamily reports whether name is a family the config may name.
func IsFamily(name string) bool {
	for _, f := range Families {
		if f.Name == name {
			return true
		}
	}
	return false
}

// on reports whether a family's rules apply: the user's config has not turned it off.
func (j *judge) on(family string) bool { return !containsString(j.ctx.Allow, family) }

// remoteDataRule is judged before the table's rule for the same program (rsync is copyRule's
// too, aws and gcloud the network rule's), not instead of it.
//
// remoteDataRule: commands that destroy data kept outside the project: remote copies, cloud
// resources, containers and their volumes, clusters, infrastructure, databases.
//
// Why: `rsync -a --delete src/ /backup/`, `aws s3 rb s3://b --force`, `kubectl delete ns prod`,
// `terraform destroy` and `psql -c "DROP TABLE users"` cannot be undone from the project, and a
// hasty agent runs them as readily as a build.
// What: the forms remoteForms lists, per family (Families), each refused unless the user's
// config turns the family off; rsync's --delete options only when the destination is outside
// the project. The SQL a client runs is read from -c, -e, --command, --execute, sqlite3's
// second operand and a here-document or echo on its input.
// Test: TestPeerClasses.
var remoteDataRule = &rule{
	names: []string{"rsync", "rclone", "aws", "gcloud", "gsutil", "az", "docker", "podman", "kubectl", "helm",
		"terraform", "tofu", "pulumi", "dropdb", "mysqladmin", "redis-cli", "psql", "mysql", "mariadb", "sqlite3",
		"mongosh", "mongo"},
	judge: judgeRemoteData,
}

// remoteForms are the destructive forms: a program, the words that must appear among its
// arguments (all of them; "delete-*" matches a prefix), and the family.
var remoteForms = []struct {
	prog, family string
	words        []string
	what         string
}{
	{"rclone", familySync, []string{"sync"}, "makes the destination match the source, deleting what the source lacks"},
	{"rclone", familySync, []string{"purge"}, "deletes a remote path and all its contents"},
	{"rclone", familySync, []string{"delete"}, "deletes remote files"},
	{"rclone", familySync, []string{"deletefile"}, "deletes a remote file"},
	{"rclone", familySync, []string{"rmdirs"}, "deletes remote directories"},
	{"aws", familyCloud, []string{"s3", "rm"}, "deletes objects from S3"},
	{"aws", familyCloud, []string{"s3", "rb"}, "deletes an S3 bucket"},
	{"aws", familyCloud, []string{"s3", "sync", "--delete"}, "deletes the S3 objects the source lacks"},
	{"aws", familyCloud, []string{"delete-*"}, "deletes a cloud resource"},
	{"aws", familyCloud, []string{"terminate-*"}, "terminates cloud instances"},
	{"gcloud", familyCloud, []string{"delete"}, "deletes a cloud resource"},
	{"gsutil", familyCloud, []string{"rm"}, "deletes Cloud Storage objects"},
	{"gsutil", familyCloud, []string{"rb"}, "deletes a Cloud Storage bucket"},
	{"az", familyCloud, []string{"delete"}, "deletes an Azure resource"},
	{"docker", familyContainers, []string{"rm", "-f"}, "force-removes running containers"},
	{"docker", familyContainers, []string{"rm", "--force"}, "force-removes running containers"},
	{"docker", familyContainers, []string{"rmi", "-f"}, "force-removes images"},
	{"docker", familyContainers, []string{"system", "prune"}, "deletes stopped containers, networks, images and caches"},
	{"docker", familyContainers, []string{"volume", "rm"}, "deletes volumes and the data in them"},
	{"docker", familyContainers, []string{"volume", "prune"}, "deletes unused volumes and the data in them"},
	{"docker", familyContainers, []string{"image", "prune"}, "deletes images"},
	{"docker", familyContainers, []string{"container", "prune"}, "deletes stopped containers"},
	{"docker", familyContainers, []string{"compose", "down", "-v"}, "deletes the project's volumes and their data"},
	{"docker", familyContainers, []string{"compose", "down", "--volumes"}, "deletes the project's volumes and their data"},
	{"kubectl", familyKubernetes, []string{"delete"}, "deletes cluster resources"},
	{"kubectl", familyKubernetes, []string{"drain"}, "evicts every pod from a node"},
	{"helm", familyKubernetes, []string{"uninstall"}, "uninstalls a release and its resources"},
	{"helm", familyKubernetes, []string{"delete"}, "uninstalls a release and its resources"},
	{"terraform", familyInfrastructure, []string{"destroy"}, "destroys the managed infrastructure"},
	{"terraform", familyInfrastructure, []string{"apply", "-destroy"}, "destroys the managed infrastructure"},
	{"terraform", familyInfrastructure, []string{"state", "rm"}, "forgets managed resources"},
	{"pulumi", familyInfrastructure, []string{"destroy"}, "destroys the stack's resources"},
	{"dropdb", familyDatabases, nil, "deletes a PostgreSQL database"},
	{"mysqladmin", familyDatabases, []string{"drop"}, "deletes a MySQL database"},
	{"redis-cli", familyDatabases, []string{"flushall"}, "deletes every key of every Redis database"},
	{"redis-cli", familyDatabases, []string{"flushdb"}, "deletes every key of the Redis database"},
}

// aliasOf maps programs that take another's arguments to it. A switch, not a map: a map
// literal would be built in every hook process at start-up (TestInitAllocatesNothing).
func aliasOf(prog string) string {
	switch prog {
	case "podman":
		return "docker"
	case "tofu":
		return "terraform"
	case "mariadb":
		return "mysql"
	case "mongo":
		return "mongosh"
	}
	return prog
}

// destructiveSQL matches the statements that destroy data: DROP and TRUNCATE, and a DELETE
// with no WHERE (the whole table). Compiled on first use, not at start-up.
func destructiveSQL() *regexp.Regexp {
	sqlOnce.Do(func() {
		sqlRe = regexp.MustCompile(`(?is)\b(drop\s+(table|database|schema|index|view|user|role|collection)\b|truncate\b|delete\s+from\s+[\w."]+\s*(;|$)|dropDatabase\s*\(|\.drop\s*\()`)
	})
	return sqlRe
}

var (
	sqlOnce sync.Once
	sqlRe   *regexp.Regexp
)

func judgeRemoteData(j *judge, c *invocation) *programs.Refusal {
	prog := aliasOf(c.prog)
	args := values(c.args)
	if prog == "redis-cli" {
		for i := range args {
			args[i] = strings.ToLower(args[i]) // Redis commands are case-blind
		}
	}
	for _, f := range remoteForms {
		if f.prog != prog || !j.on(f.family) || !hasWords(args, f.words) {
			continue
		}
		return refuse(c.prog, familyHint(f.family), "`%s %s` %s", c.prog, strings.Join(f.words, " "), f.what)
	}
	switch prog {
	case "rsync":
		return j.rsyncDelete(c)
	case "psql", "mysql", "sqlite3", "mongosh":
		if !j.on(familyDatabases) {
			return nil
		}
		var sql []string
		p := (&optionSpec{valued: "cedfhpUuPW", long: []string{"--command", "--execute", "--eval", "--file", "--host", "--port", "--user", "--dbname"}}).parse(c.args)
		for _, o := range p.opts {
			switch o.name {
			case "-c", "-e", "--command", "--execute", "--eval":
				sql = append(sql, o.value.s)
			}
		}
		if prog == "sqlite3" && len(p.operands) > 1 {
			for _, w := range p.operands[1:] {
				sql = append(sql, w.s)
			}
		}
		if j.input != nil {
			sql = append(sql, *j.input)
		}
		for _, s := range sql {
			if m := destructiveSQL().FindString(s); m != "" {
				return refuse(c.prog, familyHint(familyDatabases), "`%s` runs `%s`, which destroys data in the database", c.prog, clip.Short(strings.TrimSpace(m)))
			}
		}
	}
	return nil
}

// rsyncDelete: rsync's --delete options delete what the source lacks from the destination
// (the last operand): inside the project that is an rm there, anywhere else it is not.
func (j *judge) rsyncDelete(c *invocation) *programs.Refusal {
	if !j.on(familySync) {
		return nil
	}
	p := (&optionSpec{valued: "efBT", long: []string{"--exclude", "--include", "--filter", "--rsh", "--backup-dir", "--temp-dir", "--files-from", "--exclude-from", "--include-from", "--log-file", "--password-file"}}).parse(c.args)
	opt := ""
	for _, o := range p.opts {
		if strings.HasPrefix(o.name, "--del") || o.name == "--remove-source-files" {
			opt = o.name
		}
	}
	if opt == "" || len(p.operands) == 0 {
		return nil
	}
	dest := p.operands[len(p.operands)-1]
	if k := j.howFar(dest, c.st); k != reachInside {
		return refuse(c.prog, familyHint(familySync), "`rsync %s` deletes files from `%s`, which %s", opt, dest.show(), reachWords[k])
	}
	return nil
}

func familyHint(family string) string {
	return "ask the user to run it (their hookctl config can allow the " + family + " family: [edit] allow = [\"" + family + "\"])"
}

// hasWords reports whether every word of want is among args ("x-*" matching any word with
// that prefix, "-f" also inside a cluster of short options).
func hasWords(args, want []string) bool {
	for _, w := range want {
		found := false
		for _, a := range args {
			switch {
			case strings.HasSuffix(w, "*") && strings.HasPrefix(a, strings.TrimSuffix(w, "*")),
				a == w,
				len(w) == 2 && w[0] == '-' && len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.Contains(a[1:], w[1:]):
				found = true
			}
			if found {
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// codeRuns are the standard-library calls that run a command: their argument must be a string
// literal (judged as shell, above) or a list of literals (judged as an argv).
var codeRuns = []string{"os.system", "os.popen", "subprocess.run", "subprocess.call", "subprocess.check_call",
	"subprocess.check_output", "subprocess.Popen", "subprocess.getoutput", "execSync", "execFileSync", "spawnSync",
	"child_process.exec", "system", "IO.popen", "popen"}

// codeDeletes are the standard-library calls of the common interpreters that delete files:
// the call's name and whether it deletes a whole tree.
var codeDeletes = []struct {
	call      string
	recursive bool
}{
	{"rmtree", true},       // Python shutil.rmtree, Perl File::Path::rmtree
	{"remove_tree", true},  // Perl File::Path
	{"rm_rf", true},        // Ruby FileUtils
	{"rm_r", true},         // Ruby FileUtils
	{"remove_dir", true},   // Ruby FileUtils
	{"rmSync", true},       // Node fs.rmSync (recursive or not: judged as if recursive)
	{"rmdirSync", true},    // Node fs.rmdirSync
	{"fs.rm", true},        // Node fs.rm, fs.promises.rm
	{"removedirs", true},   // Python os.removedirs
	{"os.remove", false},   // Python
	{"os.unlink", false},   // Python
	{"os.rmdir", false},    // Python
	{"unlinkSync", false},  // Node
	{"unlink", false},      // Perl, Python pathlib, Node fs.unlink
	{"File.delete", false}, // Ruby
	{"FileUtils.rm", false},
}

// codeCalls judges what code in another language does through the calls the guard knows: each
// string literal in it that parses as a shell command is judged as one (os.system("…"),
// execSync('…'), system "…", backticks), and each deleting call (codeDeletes) is judged as an
// rm -r of its first argument, which must be a literal.
//
// Test: TestPeerClasses (interpreters).
func (j *judge) codeCalls(prog, what, code string, st *state) *programs.Refusal {
	if r := j.scriptIfParses(code, st.child(), syntax.LangBash); r != nil && looksLikeShell(code) {
		return refuse(r.Program, r.Hint, "%s, read as shell code: %s", what, r.What)
	}
	for _, s := range stringLiterals(code) {
		if !strings.Contains(s, " ") {
			continue
		}
		if r := j.scriptIfParses(s, st.child(), syntax.LangBash); r != nil {
			return refuse(r.Program, r.Hint, "%s runs the shell command `%s`: %s", what, clip.Short(s), r.What)
		}
	}
	for _, call := range codeRuns {
		for off := 0; ; {
			k := strings.Index(code[off:], call)
			if k < 0 {
				break
			}
			at := off + k
			off = at + len(call)
			if at > 0 && isNameByte(code[at-1]) && code[at-1] != '.' || off < len(code) && isNameByte(code[off]) {
				continue
			}
			rest := strings.TrimLeft(code[off:], " \t")
			if !strings.HasPrefix(rest, "(") {
				continue // `system "…"` is a literal, judged above; "the system is" is no call
			}
			rest = strings.TrimLeft(rest[1:], " \t")
			switch {
			case rest == "" || rest[0] == ')':
				continue // platform.system(): no command
			case rest[0] == '[': // subprocess.run(["rm", "-rf", "/"]): the list as argv
				end := strings.IndexByte(rest, ']')
				if end < 0 {
					end = len(rest)
				}
				var argv []word
				for _, s := range stringLiterals(rest[:end]) {
					argv = append(argv, lit(s))
				}
				if r := j.argv(argv, st.child()); r != nil {
					return refuse(r.Program, r.Hint, "%s runs `%s`: %s", what, clip.Short(strings.Join(values(argv), " ")), r.What)
				}
			case rest[0] != '\'' && rest[0] != '"' && rest[0] != '`':
				return refuse(prog, hintLiteral, "%s runs a command (`%s`) computed when it runs, which the guard cannot check", what, call)
			}
		}
	}
	for _, d := range codeDeletes {
		for off := 0; ; {
			k := strings.Index(code[off:], d.call)
			if k < 0 {
				break
			}
			at := off + k
			off = at + len(d.call)
			if at > 0 && isNameByte(code[at-1]) && code[at-1] != '.' || off < len(code) && isNameByte(code[off]) {
				continue // a longer name
			}
			rest := strings.TrimLeft(code[off:], " \t")
			switch {
			case strings.HasPrefix(rest, "("):
				rest = strings.TrimLeft(rest[1:], " \t")
			case rest != "" && (rest[0] == '\'' || rest[0] == '"'): // Perl's unlink "x"
			case strings.HasPrefix(rest, ","): // Ruby's File.send(:unlink, "x")
				rest = strings.TrimLeft(rest[1:], " \t")
			default:
				continue // "please unlink it" is no call
			}
			if strings.HasPrefix(rest, ")") {
				continue
			}
			target, ok := leadingLiteral(rest)
			if !ok {
				return refuse(prog, "delete paths inside the project by name with rm, or ask the user to run it",
					"%s deletes files (`%s`) at a path computed when it runs, which the guard cannot check", what, d.call)
			}
			w := lit(target)
			if strings.HasPrefix(target, "~/") || target == "~" {
				if h, ok := st.get("HOME"); ok {
					w = lit(h + target[1:])
				}
			}
			if k := j.howFar(w, st); k != reachInside && (d.recursive || k != reachUnknown) {
				return refuse(prog, hintRm, "%s deletes `%s` (`%s`): the path %s", what, clip.Short(target), d.call, reachWords[k])
			}
			if r := j.write(prog, what, w, st, d.recursive); r != nil {
				return r
			}
		}
	}
	return nil
}

// looksLikeShell reports whether code that parsed as shell reads as a command rather than an
// expression another language happens to share with shell: its first word is a program name.
func looksLikeShell(code string) bool {
	f := strings.Fields(code)
	return len(f) > 1 && lookupRule(path.Base(f[0])) != nil
}

// stringLiterals returns the contents of the quoted strings in code ('…', "…", `…`), with
// backslash escapes taken as the escaped byte.
func stringLiterals(code string) []string {
	var out []string
	for i := 0; i < len(code); i++ {
		q := code[i]
		if q != '\'' && q != '"' && q != '`' {
			continue
		}
		var b strings.Builder
		k := i + 1
		for ; k < len(code) && code[k] != q; k++ {
			if code[k] == '\\' && k+1 < len(code) {
				k++
			}
			b.WriteByte(code[k])
		}
		if k < len(code) {
			out = append(out, b.String())
		}
		i = k
	}
	return out
}

// leadingLiteral returns the string literal s starts with.
func leadingLiteral(s string) (string, bool) {
	lits := stringLiterals(s)
	if len(s) == 0 || (s[0] != '\'' && s[0] != '"' && s[0] != '`') || len(lits) == 0 {
		return "", false
	}
	return lits[0], true
}
