package launcher

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/export/launch"
	"github.com/hookctl/hookctl/gate"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/policy"
	"github.com/hookctl/hookctl/retriever/front"
	"github.com/hookctl/hookctl/sandbox"
	"github.com/hookctl/hookctl/session"
)

// editExec runs args in the edit profile: as the launcher the hook's rewrite starts, it starts
// the sandbox's init (sandbox.RunInit) in namespaces of its own and returns the command's
// status; as the init (--init) it serves the sandbox and starts the command
// (sandbox.ServeInit).
func editExec(e *Env, home string, opts *Options, args []string) (int, error) {
	if opts.Init {
		return e.editInit(home, opts, args), nil
	}
	// The probe tries the profile as the kernel allows it, whatever the user's config says: a
	// broken config is reported as such, not cached as "no edit sandbox here".
	cfg := &config.Config{}
	if !opts.ProbeConfine {
		var err error
		if cfg, err = gate.LoadConfig(home); err != nil {
			return 0, err
		}
	}
	if !opts.ProbeConfine {
		p := e.EditProfile(home, opts.Session, opts.Project, "", false)
		p.Frozen = append(p.Frozen, nestedClients(home, opts.Session, opts.Project)...)
		if err := sandbox.CheckLinks(p); err != nil {
			return 0, err
		}
	}
	// A user namespace where the user is not root (to mount, and to bring loopback up), a
	// network namespace unless the user gave edit mode the whole network (the probe always
	// tries one: it is what edit mode has by default).
	ns := sandbox.Namespaces{User: os.Geteuid() != 0, Net: !cfg.FullNetwork() || opts.ProbeConfine}
	argv := []string{"hookctl", "sandbox", "--profile", sandbox.EditName, "--init", "--session", opts.Session, "--project", opts.Project}
	if opts.Scratch != "" {
		argv = append(argv, "--scratch", opts.Scratch)
	}
	if ns.Net {
		argv = append(argv, "--egress-fd", "4")
	}
	if opts.ProbeConfine {
		argv = append(argv, "--probe-confine")
	}
	started := func(pid int) error {
		if opts.ProbeConfine {
			return nil // the probe's: no session, and it ends with its command
		}
		if err := sandbox.RegisterInit(home, opts.Session, pid); err != nil {
			return err
		}
		// Recorded first, then the mode: a session that leaves edit mode now either finds
		// this init recorded and ends it, or has already left, which this sees.
		if mode, _, err := session.NewStore(home).Peek(opts.Session); err != nil || mode != hook.ModeEdit {
			sandbox.ForgetInit(home, opts.Session, pid)
			return errors.New("the session is not in edit mode, so edit mode's command did not run")
		}
		return nil
	}
	ended := func(pid int) {
		if !opts.ProbeConfine {
			sandbox.ForgetInit(home, opts.Session, pid)
		}
	}
	return sandbox.RunInit(sandbox.InitLaunch{Argv: append(append(argv, "--"), args...), NS: ns,
		OnConnect: e.egressStarter(home, opts.Session, opts.Profile, policyFor(home, opts, cfg)), Started: started, Ended: ended})
}

// editInit is the edit sandbox's init: the profile, with the egress proxy's listener made in
// its network namespace, and the unix sockets outside that the user lets commands reach: the
// config's edit_unix_sockets and the ssh agent's (git over ssh signs with it).
func (e *Env) editInit(home string, opts *Options, args []string) int {
	p := e.EditProfile(home, opts.Session, opts.Project, opts.Scratch, opts.ProbeConfine)
	p.ConnectHelper = e.Binary
	if !opts.ProbeConfine {
		p.Frozen = append(p.Frozen, nestedClients(home, opts.Session, opts.Project)...)
	}
	var sockets []string
	if cfg, err := gate.LoadConfig(home); err == nil {
		sockets = append(sockets, cfg.EditUnixSockets...)
	}
	if a := os.Getenv("SSH_AUTH_SOCK"); filepath.IsAbs(a) && !opts.ProbeConfine {
		sockets = append(sockets, a)
	}
	return sandbox.ServeInit(sandbox.InitConfig{Profile: p, Argv: args, Env: os.Environ(), Sockets: sockets, Bridge: opts.EgressFD != 0})
}

// nestedClients are the clients' settings directories below the project (sandbox.NestedClientDirs),
// found once per session and kept beside its scratch directory: the walk costs as much as the
// project is big. The ones the user makes later in the session are not frozen; no edit-mode
// command can make one.
func nestedClients(home, session, project string) []string {
	dir, err := sandbox.EditDir(home, session)
	if err != nil {
		return nil
	}
	cache := filepath.Join(dir, "client-dirs.json")
	var c struct {
		Project string   `json:"project"`
		Dirs    []string `json:"dirs"`
	}
	if b, err := os.ReadFile(cache); err == nil && json.Unmarshal(b, &c) == nil && c.Project == project {
		return c.Dirs
	}
	c.Project = project
	c.Dirs, _ = sandbox.NestedClientDirs(project)
	if b, err := json.Marshal(c); err == nil {
		fsutil.WriteAtomic(cache, b, 0o600)
	}
	return c.Dirs
}

// editWritable are the directories beneath the user's home that edit mode's commands may write
// besides the project and the temporary directories: the caches and stores of package managers
// and toolchains. The user's config adds to them (edit_writable).
var editWritable = []string{".cache", ".npm", ".yarn", ".pnpm-store", ".bun", ".deno", ".cargo", ".rustup", "go",
	".m2", ".gradle", ".nuget", ".local/share/pnpm"}

// EditProfile is the edit profile for session, whose project is project: it may write the
// project, the temporary directories and the caches, never hookctl's files, the clients'
// settings (whole .claude directories, and the other clients' (Env.ClientDirs), in the home and in the
// project and above), the shell's start-up files, or what runs later outside the sandbox: git's
// code-running files and the auto-run files (gate.AutoRun), and the directories on the user's
// PATH that it could otherwise write. The tools' caches (editWritable) it writes through
// layers of the session's own (sandbox.Profile.Layered), so that nothing it puts there (a
// binary on PATH, an init script, a module) runs outside.
//
// confine (the probe's) leaves the project as the only writable directory.
func (e *Env) EditProfile(home, session, project, scratch string, confine bool) *sandbox.Profile {
	userHome, _ := os.UserHomeDir()
	binary := e.Binary
	frozen := policy.ProtectedPaths(e.Client, home, userHome, binary, project)
	// And what hookctl starts from beside itself: outside every sandbox the network executable
	// and the exporter any hook call may start, and the read-only launcher every admitted read
	// starts as (it applies the sandbox itself). PATH's directories are frozen below; these are
	// wherever the user installed them, possibly in an edit_writable directory off PATH.
	frozen = append(frozen, binary, front.WorkerPath(binary), launch.Path(binary), sandbox.LauncherPath(binary))
	if userHome != "" {
		frozen = append(frozen, filepath.Join(userHome, ".claude"), filepath.Join(userHome, ".claude.json"))
		for _, d := range e.ClientDirs.Home {
			frozen = append(frozen, filepath.Join(userHome, d))
		}
	}
	for d := filepath.Clean(project); ; d = filepath.Dir(d) {
		frozen = append(frozen, filepath.Join(d, ".claude"))
		for _, c := range e.ClientDirs.Project {
			frozen = append(frozen, filepath.Join(d, c))
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	frozen = append(frozen, "/etc/claude-code")
	frozen = append(frozen, e.ClientDirs.System...)
	shared := []string{project, "/tmp", "/var/tmp", "/dev/shm", os.TempDir()}
	var caches []string
	for _, d := range editWritable {
		if userHome != "" {
			caches = append(caches, filepath.Join(userHome, d))
		}
	}
	var autoWritable []string
	if cfg, err := gate.LoadConfig(home); err == nil {
		shared = append(shared, cfg.EditWritable...)
		autoWritable = cfg.EditAutoRunWritable
	}
	writable := append(slices.Clone(shared), caches...)
	if confine {
		shared, writable, caches = []string{project}, []string{project}, nil
	}
	// What runs code later outside the sandbox (git's hooks and config, .envrc, .vscode, …):
	// frozen, and refused where it does not exist yet; the git directories are anchored.
	auto, gitDirs := gate.AutoRun(project, userHome, autoWritable)
	auto = append(auto, pathDirs(shared, autoWritable)...)
	why := map[string]string{}
	for _, a := range auto {
		frozen = append(frozen, a.Path)
		why[a.Path] = a.Refusal()
	}
	p := sandbox.Edit(sandbox.HiddenDirs(home), frozen, writable, scratch, project)
	p.FrozenWhy = why
	for _, d := range gitDirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			p.Anchors = append(p.Anchors, d)
		}
	}
	if session != "" && len(caches) > 0 {
		p.SetLayers(sandbox.LayersDir(home, session), caches)
	}
	return p
}

// pathDirs are the directories on the user's PATH (as the client runs commands with it) beneath
// a directory edit mode writes as it is (shared: the project, the temporary directories, the
// user's edit_writable): what a command put there would run the next time the user typed its
// name. A relative entry (., bin) names the directory the user is in, which no sandbox can keep.
func pathDirs(shared, autoWritable []string) []policy.AutoRunPath {
	var out []policy.AutoRunPath
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		if !slices.ContainsFunc(shared, func(w string) bool { return withinDir(d, filepath.Clean(w)) }) ||
			slices.ContainsFunc(autoWritable, func(w string) bool { return filepath.IsAbs(w) && withinDir(d, filepath.Clean(w)) }) {
			continue
		}
		out = append(out, policy.AutoRunPath{Path: d, Key: d,
			What: "a directory on your PATH: a program put there runs instead of the one you meant, the next time you type its name"})
	}
	return out
}

// withinDir says whether path is dir or beneath it.
func withinDir(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/")
}
