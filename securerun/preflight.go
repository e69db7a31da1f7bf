package securerun

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/sandbox"
	"github.com/hookctl/hookctl/sandbox/egress"
	"github.com/hookctl/hookctl/scrub"
)

// Options are what `hookctl run` was asked, and the machine facts it gathers them with.
type Options struct {
	Profile, Network, Credentials string
	// Repo is --repo, or "" for the git work tree that holds Dir (the current directory).
	Repo, Dir string
	// Out is --out, or "" for a new directory (ID) under RunsDir(StateDir).
	Out, StateDir, ID string
	UserHome          string
	AllowSensitive    []string
	Env               []string // --env NAME[=VALUE]
	Command           []string
	Environ           []string // the caller's environment
	MaxArtifactBytes  int64
	// Git runs git with args in dir, contained (hookctl's read-only sandbox: a hostile
	// repository's filters and hooks run where they can do nothing), and returns its standard
	// output.
	Git func(dir string, args ...string) ([]byte, error)
	// ProbeProblem is why the machine's sandbox probe failed, or "".
	ProbeProblem string
	// Read are --read's directories: programs installed outside the system's directories
	// (the agent's own installation), readable and executable in the run.
	Read []string
	// ModelBackend, ModelURL: --model-backend and --model-url (model-only); ModelEndpoints
	// is the user's allowlist of model URLs ([run] model_endpoints).
	ModelBackend, ModelURL string
	ModelEndpoints         []string
	// Agent recognises the agents hookctl installs its hooks for; nil: none.
	Agent AgentFor
	// NetworkNamespaces says why the run cannot have a network namespace of its own (which
	// model-only needs), or "".
	NetworkNamespaces string
}

// Repository is the checkout the run reads.
type Repository struct {
	Root string `json:"root"`
	Git  bool   `json:"git"`
	// GitDirs are the repository's git directories outside the root (a worktree's and its
	// common directory), readable in the run so that git works.
	GitDirs []string `json:"git_dirs,omitempty"`
	Commit  string   `json:"commit,omitempty"`
	Tree    string   `json:"tree,omitempty"`
	Dirty   bool     `json:"dirty"`
	// Changed counts the entries of git status: modified, staged and untracked files.
	Changed int `json:"changed"`
}

// Isolation is what the sandbox is made of on this machine.
type Isolation struct {
	Mechanism      string `json:"mechanism"`
	Kernel         string `json:"kernel"`
	LandlockABI    int    `json:"landlock_abi"`
	LandlockNeeded int    `json:"landlock_abi_needed"`
	Seccomp        string `json:"seccomp"`
}

// NetworkPolicy is the run's network and how it is held.
type NetworkPolicy struct {
	Policy       string   `json:"policy"`
	Destinations []string `json:"destinations"`
	Enforced     string   `json:"enforced_by"`
}

// Credentials is the credential mode and the environment it gives the command.
type Credentials struct {
	Mode        string      `json:"mode"`
	Environment Environment `json:"environment"`
}

// Preflight is the effective policy of a run and everything it was decided on. Failures, if
// any, are why the run may not start, each naming what is missing; the run starts only
// without any.
type Preflight struct {
	Profile    string     `json:"profile"`
	Isolation  Isolation  `json:"isolation"`
	Repository Repository `json:"repository"`
	// Command is the command as recorded: its program resolved, any argument that holds a
	// secret withheld.
	Command     []string      `json:"command"`
	Readable    []string      `json:"readable"`
	Hidden      []string      `json:"hidden"`
	Writable    []string      `json:"writable"`
	Network     NetworkPolicy `json:"network"`
	Credentials Credentials   `json:"credentials"`
	Sensitive   Sensitive     `json:"sensitive"`
	AgentConfig []AgentConfig `json:"agent_config"`
	// Model is the model a model-only run reaches; Agent is what hookctl installs for an agent
	// it knows.
	Model     *Model          `json:"model,omitempty"`
	Agent     *AgentRun       `json:"agent,omitempty"`
	Out       string          `json:"out"`
	Artifacts ArtifactsPolicy `json:"artifacts"`
	Warnings  []string        `json:"warnings"`
	Failures  []string        `json:"failures"`

	argv   []string // what runs: Command unwithheld
	env    []string // the command's environment
	broker *egress.BrokerConfig
}

// RunRoots are the run's readable roots beyond the system's (SystemReadable, which the
// launcher adds itself): the repository, its git directories, --read's, hookctl's executables
// and the agent's config.
func (p *Preflight) RunRoots() []string {
	var roots []string
	for _, r := range p.Readable {
		if !slices.Contains(sandbox.SystemReadable, r) && !slices.Contains(roots, r) {
			roots = append(roots, r)
		}
	}
	return roots
}

// BrokerConfig is the credential broker's config, holding the credential, for a model-only
// run; nil otherwise. It is never serialised with the preflight.
func (p *Preflight) BrokerConfig() *egress.BrokerConfig { return p.broker }

// ModelVars are the variables the launcher points at the broker.
func (p *Preflight) ModelVars() []string {
	if p.Model == nil || p.broker == nil {
		return nil
	}
	b, _ := backendNamed(p.Model.Backend)
	return b.URLVars
}

// ArtifactsPolicy is how the output is checked after the run.
type ArtifactsPolicy struct {
	MaxBytes int64 `json:"max_bytes"`
}

// OK says whether the run may start.
func (p *Preflight) OK() bool { return len(p.Failures) == 0 }

// Argv is the command to run, its program as an absolute path.
func (p *Preflight) Argv() []string { return p.argv }

// Env is the command's environment.
func (p *Preflight) Env() []string { return p.env }

// Gather runs the preflight: it reads the repository (git, contained, and a walk of its files),
// the machine's isolation and the caller's environment, and decides. It never starts the run.
func Gather(o Options) *Preflight {
	p := &Preflight{Profile: o.Profile, Hidden: sandbox.SystemHidden(), Artifacts: ArtifactsPolicy{MaxBytes: o.MaxArtifactBytes},
		Network:     NetworkPolicy{Policy: o.Network},
		Credentials: Credentials{Mode: o.Credentials}}
	fail := func(format string, a ...any) { p.Failures = append(p.Failures, fmt.Sprintf(format, a...)) }
	warn := func(format string, a ...any) { p.Warnings = append(p.Warnings, fmt.Sprintf(format, a...)) }

	if o.Profile != Profile {
		fail("the profile %q does not exist; the one profile is %s", o.Profile, Profile)
	}
	switch o.Network {
	case NetworkDeny:
		p.Network.Enforced = "seccomp: no socket but a unix stream or seqpacket pair, no connect, bind, listen or accept, no sendto an address; landlock: TCP bind and connect"
	case NetworkModelOnly:
		p.Network.Enforced = modelOnlyEnforcement
		p.Model, p.broker = modelOf(o, fail)
		if p.Model != nil && p.Model.URL != "" {
			p.Network.Destinations = []string{p.Model.URL + " (through hookctl's credential broker)"}
		}
		if o.NetworkNamespaces != "" {
			fail("--network model-only needs a network namespace of its own for the run: %s; nothing ran (use --network deny)", o.NetworkNamespaces)
		}
	default:
		fail("--network %q: the policies are deny and, not yet built, model-only", o.Network)
	}
	if p.Network.Destinations == nil {
		p.Network.Destinations = []string{}
	}
	if o.Credentials != CredentialsNone {
		fail("--credentials %q: the one credential mode is none (the model's credential, under --network model-only, is added outside the run by hookctl's broker)", o.Credentials)
	}
	p.Isolation = isolationOf(o.ProbeProblem, fail)
	if o.Network == NetworkModelOnly {
		p.Isolation.Mechanism += ", a network namespace of its own"
		p.Isolation.Seccomp = "the read-only profile's filter, with plain TCP sockets and connect allowed (other processes, namespaces, io_uring, metadata; no UDP, raw or unix sockets, no bind, listen or accept)"
	}

	p.Repository = repositoryOf(o, fail, warn)
	root := p.Repository.Root
	if root != "" {
		p.Readable = append([]string{root}, p.Repository.GitDirs...)
	}
	for _, r := range o.Read {
		real, err := realPath(r)
		switch {
		case !filepath.IsAbs(r):
			fail("--read %s: give an absolute path", r)
		case err != nil:
			fail("--read %s: %v", r, err)
		case rootProblem(real, o.UserHome, o.StateDir) != "":
			fail("--read %s: %s", r, strings.Replace(rootProblem(real, o.UserHome, o.StateDir), "the repository root", "the directory", 1))
		case within(o.UserHome, real) || real == o.UserHome:
			fail("--read %s: it is your home directory", r)
		default:
			p.Readable = append(p.Readable, real)
		}
	}
	p.Readable = append(p.Readable, sandbox.SystemReadable...)

	p.Out = o.Out
	if p.Out == "" {
		p.Out = filepath.Join(RunsDir(o.StateDir), o.ID)
	} else if !filepath.IsAbs(p.Out) {
		p.Out = filepath.Join(o.Dir, p.Out)
	}
	p.Out = filepath.Clean(p.Out)
	if real, err := realPath(p.Out); err == nil {
		p.Out = real
	}
	if root != "" {
		if why := outProblem(p.Out, root, p.Repository.GitDirs); why != "" {
			fail("%s", why)
		}
	}
	l := Layout{Out: p.Out}
	p.Writable = l.Writable()

	var envFailures []string
	p.env, p.Credentials.Environment, envFailures = BuildEnv(o.Environ, o.Env, l, append(slices.Clone(p.Readable), p.Writable...))
	p.Failures = append(p.Failures, envFailures...)

	p.argv, p.Command = commandOf(o, p, fail)
	if o.Agent != nil && len(p.argv) > 0 && filepath.IsAbs(p.argv[0]) {
		if a := o.Agent(p.argv[0], l); a != nil {
			p.Agent = a
			p.argv = slices.Concat(p.argv[:1], a.Args, p.argv[1:])
			p.Command = slices.Concat(p.Command[:1], a.Args, p.Command[1:])
			p.env = append(p.env, a.Env...)
			p.Credentials.Environment.Set = append(p.Credentials.Environment.Set, a.Env...)
			p.Readable = append(p.Readable, a.Read...)
			p.Readable = append(p.Readable, l.Config())
			if a.Build != nil {
				a.Files = a.Build(p.RunRoots())
			}
			if p.Model != nil && a.Backend != "" && a.Backend != p.Model.Backend {
				fail("%s speaks the %s API, and the run's model backend is %s: pass --model-backend %s", a.Client, a.Backend, p.Model.Backend, a.Backend)
			}
		}
	}
	if p.Model != nil && p.Model.Broker != nil {
		b, _ := backendNamed(p.Model.Backend)
		placeholder := b.Placeholder + "=" + PlaceholderValue
		p.env = append(p.env, placeholder)
		p.Credentials.Environment.Set = append(p.Credentials.Environment.Set, placeholder)
		for _, v := range b.URLVars {
			p.Credentials.Environment.Set = append(p.Credentials.Environment.Set, v+"=(the broker's URL in the run)")
		}
	}

	if root != "" {
		var allow []string
		for _, a := range o.AllowSensitive {
			rel, err := relativeTo(root, o.Dir, a)
			if err != nil {
				fail("--allow-sensitive %s: %v", a, err)
				continue
			}
			allow = append(allow, rel)
		}
		p.Sensitive, p.AgentConfig = Scan(root, p.Repository.GitDirs, allow)
		if p.Sensitive.Incomplete != "" {
			fail("the sensitive-content scan did not finish (%s), so it cannot vouch for the repository", p.Sensitive.Incomplete)
		}
		if refused := p.Sensitive.Refused(); len(refused) > 0 {
			names := make([]string, len(refused))
			for i, f := range refused {
				names[i] = f.Path
			}
			fail("the repository holds %d sensitive %s (%s): remove %s, or let %s through with --allow-sensitive PATH (the preflight lists what each is)",
				len(refused), plural(len(refused), "file", "files"), strings.Join(names, ", "), plural(len(refused), "it", "them"), plural(len(refused), "it", "them"))
		}
		for _, u := range p.Sensitive.Unmatched {
			warn("--allow-sensitive %s matched nothing the scan found", u)
		}
	}
	for _, f := range []*[]string{&p.Warnings, &p.Failures} {
		if *f == nil {
			*f = []string{}
		}
	}
	return p
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// isolationOf is the machine's sandbox as the profile needs it.
func isolationOf(probeProblem string, fail func(string, ...any)) Isolation {
	iso := Isolation{Mechanism: "landlock, seccomp, no capabilities, no new privileges", LandlockNeeded: sandbox.SecureMinABI,
		Seccomp: "the read-only profile's filter (network, metadata, other processes, namespaces, io_uring)"}
	kernel, abi, err := sandbox.Mechanisms()
	iso.Kernel, iso.LandlockABI = kernel, abi
	switch {
	case err != nil:
		fail("no sandbox: %v; nothing ran (the run never goes without it)", err)
	case abi < sandbox.SecureMinABI:
		fail("no sandbox: this kernel's Landlock is ABI %d, and the profile needs ABI %d (signals scoped to the sandbox, Linux 6.7 or later); nothing ran", abi, sandbox.SecureMinABI)
	case probeProblem != "":
		fail("no sandbox: the sandbox probe failed: %s; nothing ran", probeProblem)
	}
	return iso
}

// repositoryOf finds the repository's root (--repo, or the git work tree holding the current
// directory) and its checkout.
func repositoryOf(o Options, fail, warn func(string, ...any)) Repository {
	var r Repository
	dir := o.Dir
	if o.Repo != "" {
		dir = o.Repo
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(o.Dir, dir)
		}
	}
	real, err := realPath(dir)
	if err != nil {
		fail("the repository %s: %v", dir, err)
		return r
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		fail("the repository %s is not a directory", dir)
		return r
	}
	var top, gitDir, common string
	if o.Git != nil {
		out, err := o.Git(real, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir")
		if f := strings.Split(strings.TrimSpace(string(out)), "\n"); err == nil && len(f) == 3 {
			top, gitDir, common = f[0], f[1], f[2]
		}
	}
	switch {
	case top == "" && o.Repo == "":
		fail("%s is not in a git work tree (or git could not read it); pass --repo DIR", real)
		return r
	case top == "":
		warn("%s is not a git work tree: no commit or tree to record", real)
		r.Root = real
	case o.Repo != "" && top != real:
		warn("the repository root %s is inside the git work tree %s: the rest of it, and git, are unreadable in the run", real, top)
		r.Root = real
	default:
		r.Root, r.Git = top, true
	}
	if why := rootProblem(r.Root, o.UserHome, o.StateDir); why != "" {
		fail("%s", why)
		r.Root = ""
		return r
	}
	if !r.Git {
		return r
	}
	if why := gitDirsVouched(r.Root, gitDir, common); why != "" {
		fail("%s", why)
		return r
	}
	for _, g := range []string{gitDir, common} {
		if g, err := realPath(g); err == nil && !within(g, r.Root) && !slices.Contains(r.GitDirs, g) {
			if why := rootProblem(g, o.UserHome, o.StateDir); why != "" {
				fail("the repository's git directory: %s", why)
				continue
			}
			r.GitDirs = append(r.GitDirs, g)
		}
	}
	if out, err := o.Git(r.Root, "rev-parse", "HEAD", "HEAD^{tree}"); err == nil {
		if f := strings.Fields(string(out)); len(f) == 2 {
			r.Commit, r.Tree = f[0], f[1]
		}
	} else {
		warn("the repository has no commit yet")
	}
	out, err := o.Git(r.Root, "status", "--porcelain=v1", "-z", "--untracked-files=normal", "--ignore-submodules=none")
	if err != nil {
		fail("git status failed in the repository, so whether it is dirty is unknown: %v", err)
		return r
	}
	r.Changed = statusEntries(out)
	r.Dirty = r.Changed > 0
	return r
}

// statusEntries counts the entries of `git status --porcelain=v1 -z`: "XY PATH", each ended by
// a NUL, a rename's or copy's followed by its source's path.
func statusEntries(out []byte) int {
	n := 0
	fields := bytes.Split(out, []byte{0})
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		n++
		if bytes.ContainsAny(f[:2], "RC") {
			i++ // the source's path
		}
	}
	return n
}

// rootProblem says why a directory may not be the repository's root (or one of its git
// directories), or "": the profile reads all of it, so it must hold neither the user's home
// (every credential store) nor hookctl's own directory, and it cannot be the whole system.
func rootProblem(root, home, state string) string {
	switch {
	case root == "/":
		return "the repository root is /, the whole system: pass --repo DIR"
	case home != "" && within(home, root):
		return fmt.Sprintf("the repository root %s holds your home directory %s: the profile would read all of it", root, home)
	case state != "" && within(state, root):
		return fmt.Sprintf("the repository root %s holds hookctl's directory %s", root, state)
	case state != "" && within(root, state):
		return fmt.Sprintf("the repository root %s is inside hookctl's directory %s", root, state)
	}
	return ""
}

// outProblem says why out may not be the run's output directory, or "": it must be new or
// empty (nothing planted before the run counts as its output), and apart from the repository
// (which stays read-only, and which the output must not shadow).
func outProblem(out, root string, gitDirs []string) string {
	for _, r := range append([]string{root}, gitDirs...) {
		switch {
		case within(out, r):
			return fmt.Sprintf("the output directory %s is inside the repository %s, which the run may not write: choose --out elsewhere", out, r)
		case within(r, out):
			return fmt.Sprintf("the output directory %s holds the repository %s: choose --out elsewhere", out, r)
		}
	}
	entries, err := os.ReadDir(out)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return ""
	case err != nil:
		return fmt.Sprintf("the output directory %s: %v", out, err)
	case len(entries) > 0:
		return fmt.Sprintf("the output directory %s is not empty: give a new or empty directory", out)
	}
	return ""
}

// realPath resolves p's links, or, for a path that does not exist yet, its nearest existing
// ancestor's, keeping the rest.
func realPath(p string) (string, error) {
	p = filepath.Clean(p)
	real, err := filepath.EvalSymlinks(p)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, os.ErrNotExist) || filepath.Dir(p) == p {
		return "", err
	}
	parent, err := realPath(filepath.Dir(p))
	if err != nil {
		return "", err
	}
	return filepath.Join(parent, filepath.Base(p)), nil
}

// relativeTo is path a, given on the command line in dir, relative to root, which must hold
// it.
func relativeTo(root, dir, a string) (string, error) {
	if !filepath.IsAbs(a) {
		// Relative to the repository, as the preflight lists findings; from the current
		// directory if it names something there.
		if _, err := os.Lstat(filepath.Join(root, a)); err != nil {
			if _, err := os.Lstat(filepath.Join(dir, a)); err == nil {
				a = filepath.Join(dir, a)
			}
		}
	}
	if filepath.IsAbs(a) {
		rel, err := filepath.Rel(root, filepath.Clean(a))
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return "", errors.New("it is outside the repository")
		}
		a = rel
	}
	return filepath.ToSlash(filepath.Clean(a)), nil
}

// commandOf resolves the command's program in the run's PATH and checks that the sandbox can
// run it (it and its script's interpreter lie within what the profile reads), and returns what
// runs and what is recorded (arguments that hold a secret withheld).
func commandOf(o Options, p *Preflight, fail func(string, ...any)) (argv, shown []string) {
	if len(o.Command) == 0 {
		fail("no command: give it after --")
		return nil, []string{}
	}
	argv = slices.Clone(o.Command)
	readable := append(slices.Clone(p.Readable), p.Writable...)
	path, err := lookPath(argv[0], o.Dir, p.Credentials.Environment.PATH)
	if err != nil {
		// Found where the caller would run it, outside what the run reads: say what to add.
		if there, err2 := lookPath(argv[0], o.Dir, getenv(o.Environ, "PATH")); err2 == nil {
			real, _ := filepath.EvalSymlinks(there)
			fail("%s is %s, which the run cannot read: give its path after --, and add --read %s (or the directory of its installation)", argv[0], real, filepath.Dir(real))
		} else {
			fail("%s: %v", argv[0], err)
		}
	} else {
		argv[0] = path
		real, _ := filepath.EvalSymlinks(path)
		switch interp := interpreter(real); {
		case !slices.ContainsFunc(readable, func(r string) bool { return within(real, r) }):
			fail("%s is %s, which the profile cannot read: add --read %s (or the directory of its installation), or run a program installed under /usr", o.Command[0], real, filepath.Dir(real))
		case interp != "" && !slices.ContainsFunc(readable, func(r string) bool { return within(interp, r) }):
			fail("%s is a script for %s, which the profile cannot read", o.Command[0], interp)
		}
	}
	s := scrub.NewScrubber(o.Environ)
	shown = make([]string, len(argv))
	for i, a := range argv {
		shown[i] = a
		if f := s.Check("argument", a); f != nil {
			shown[i] = "[withheld: " + f.Kind + "]"
		}
	}
	return argv, shown
}

// lookPath finds name as the command would: a path with a slash from the current directory,
// otherwise the first executable file in path.
func lookPath(name, dir, path string) (string, error) {
	executable := func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
	}
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		if !executable(name) {
			return "", errors.New("not an executable file")
		}
		return filepath.Clean(name), nil
	}
	for _, d := range filepath.SplitList(path) {
		if c := filepath.Join(d, name); executable(c) {
			return c, nil
		}
	}
	return "", fmt.Errorf("not found in the run's PATH (%s)", path)
}

// interpreter is the program a script's #! line names, or "".
func interpreter(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := f.Read(buf)
	line, _, _ := bytes.Cut(buf[:n], []byte("\n"))
	rest, ok := bytes.CutPrefix(line, []byte("#!"))
	if !ok {
		return ""
	}
	fields := strings.Fields(string(rest))
	if len(fields) == 0 {
		return ""
	}
	if real, err := filepath.EvalSymlinks(fields[0]); err == nil {
		return real
	}
	return fields[0]
}

// gitDirsVouched says why the repository's git directories outside root may not be read by
// the run, or "": a run reads the repository, and git directories elsewhere only when that
// other place names this work tree back. A .git/commondir (or a .git file) is the
// repository's own text, which anyone who wrote the repository chose: one that named another
// repository (the user's private one) would have the run read it.
//
//   - A git directory inside root: its common directory must be inside root too.
//   - A git directory outside root: a linked worktree's (its gitdir file names root/.git,
//     and its common directory is the one two levels up, the main repository's .git) or a
//     submodule's (its config's core.worktree names root).
func gitDirsVouched(root, gitDir, common string) string {
	real := func(p string) string {
		if r, err := realPath(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	gitDir, common = real(gitDir), real(common)
	if within(gitDir, root) {
		if !within(common, root) {
			return "the repository's git directory names " + common + " as its common directory, outside the repository " +
				"(its commondir file); a run reads only the repository"
		}
		return ""
	}
	if b, err := fsutil.ReadFile(filepath.Join(gitDir, "gitdir"), 4096, false); err == nil {
		back := strings.TrimSpace(string(b))
		if !filepath.IsAbs(back) {
			back = filepath.Join(gitDir, back)
		}
		if real(back) == filepath.Join(root, ".git") && (common == gitDir || common == filepath.Dir(filepath.Dir(gitDir))) {
			return ""
		}
	}
	if b, err := fsutil.ReadFile(filepath.Join(gitDir, "config"), 256<<10, false); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			key, value, ok := strings.Cut(strings.TrimSpace(line), "=")
			if ok && strings.EqualFold(strings.TrimSpace(key), "worktree") {
				wt := strings.Trim(strings.TrimSpace(value), `"`)
				if !filepath.IsAbs(wt) {
					wt = filepath.Join(gitDir, wt)
				}
				if real(wt) == root && common == gitDir {
					return ""
				}
			}
		}
	}
	return "the repository's git directory " + gitDir + " is outside it and does not name it back (as a worktree's or a " +
		"submodule's does); a run reads only the repository"
}
