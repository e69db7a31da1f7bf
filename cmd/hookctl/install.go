package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/agents/claude"
	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/sandbox"
)

type installOptions struct {
	Agent  string // a client other than Claude Code (install_agents.go)
	Scope  string
	DryRun bool
	Remove bool // uninstall
}

func newInstallCmd(s *streams) *cobra.Command {
	opts := &installOptions{}
	cmd := &cobra.Command{
		Use:   "install [--scope user|project|local|managed] [--dry-run]",
		Short: "Register hookctl as a client's hook (Claude Code, or the client --agent names)",
		Long: `install registers hookctl as the hook of a coding agent: Claude Code by default, or with
--agent codex, qwen, gemini, copilot or cursor in that client's own hooks file (edited in
place, what it replaces backed up; hookctl doctor --agent NAME checks it).

For Claude Code it registers hookctl as the PreToolUse, UserPromptSubmit,
UserPromptExpansion, SessionStart and SessionEnd hook and as its status line (wrapping the
status line you had), and writes the /readonly command to ~/.claude/commands/readonly.md.
It links $HOOKCTL_HOME/bin/hookctl to this binary, which the hooks run, and writes
$HOOKCTL_HOME/uninstall.sh, which removes hookctl's hooks when the binary is gone.

It edits the settings file in place: every other key and hook is kept byte for byte, the old
file is backed up under $HOOKCTL_HOME/backups, and running it again changes nothing. A file
Claude Code would not read (comments, trailing commas) or cannot parse is refused, never
overwritten.

Scopes: user (~/.claude/settings.json, the default); project (.claude/settings.json in the
current directory, for a team to commit: it names no path of yours, and each member's own
install runs it); local (.claude/settings.local.json, yours alone in this project); managed
(the organization's managed-settings.json, which no project can switch off; needs root).`,
		Example: `  hookctl install
  hookctl install --agent codex
  hookctl install --dry-run
  hookctl install --scope project   # then commit .claude/settings.json
  sudo hookctl install --scope managed`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return installOrAgent(s, opts) },
	}
	cmd.Flags().StringVar(&opts.Agent, "agent", "claude", "the client: claude, codex, qwen, gemini, copilot or cursor")
	cmd.Flags().StringVar(&opts.Scope, "scope", "user", "where to register: user, project, local or managed")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "show what would change and write nothing")
	return cmd
}

func newUninstallCmd(s *streams) *cobra.Command {
	opts := &installOptions{Remove: true}
	cmd := &cobra.Command{
		Use:   "uninstall [--scope user|project|local|managed] [--dry-run]",
		Short: "Remove what hookctl install added",
		Long: `uninstall undoes install: for Claude Code (the default) as below; with --agent NAME it puts
back that client's hooks file as it was (or, if you edited it since, takes out only hookctl's
entry).

For Claude Code it removes hookctl's hooks and status line from the settings file of the scope,
restores the status line install replaced, and removes the /readonly command file if it is
hookctl's and no other scope registers hookctl. Everything else in the file, and every other
scope's file, is kept; the old file is backed up under $HOOKCTL_HOME/backups.

Without the hookctl binary (moved or deleted, so that Claude Code refuses every prompt),
sh $HOOKCTL_HOME/uninstall.sh makes the same edit.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return installOrAgent(s, opts) },
	}
	cmd.Flags().StringVar(&opts.Agent, "agent", "claude", "the client: claude, codex, qwen, gemini, copilot or cursor")
	cmd.Flags().StringVar(&opts.Scope, "scope", "user", "where to remove it from: user, project, local or managed")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "show what would change and write nothing")
	return cmd
}

// installOrAgent is install (or uninstall) for Claude Code, or for the client --agent names.
func installOrAgent(s *streams, opts *installOptions) error {
	var err error
	if opts.Agent == "" || opts.Agent == "claude" {
		err = installRun(s, opts)
	} else if _, err = agentNamed(opts.Agent); err == nil {
		err = agentInstallRun(s, opts.Agent, opts)
	}
	if err == nil && !opts.Remove && !opts.DryRun && opts.Scope != "managed" {
		probeAtInstall(s)
	}
	return err
}

// probeAtInstall tries the sandbox now, as the hook would, and caches the answer: otherwise the
// first command a hook admits on a new machine, or after an upgrade, waits for the probe (two
// execs of hookctl) inside the hook's deadline, and a loaded machine refuses it. It also says
// what holds here, before the first session does. A managed install runs as root for every user,
// each of whom has a cache of their own.
func probeAtInstall(s *streams) {
	env := hookEnv()
	if env.err != nil || env.binary == "" {
		return
	}
	st := sandbox.Current(env.home, env.binary)
	fmt.Fprintf(s.out, "sandbox on this machine: %s (hookctl doctor says more)\n", isolationOf(st).Status())
}

// linkedBinary is the link install makes in hookctl's home to the binary it installed.
func linkedBinary(home string) string { return filepath.Join(home, claude.LinkedBinary) }

// savedStatusLines is hookctl's record of the status lines install replaced, per settings file.
// Each is kept as the exact JSON text it had, in a string, so that uninstall puts back the same
// bytes.
type savedStatusLines struct {
	// Previous is the one `hookctl statusline` runs after its badge: the last replaced.
	Previous string `json:"previous,omitempty"`
	// Files maps a settings file to the status line it had, for uninstall.
	Files map[string]string `json:"files,omitempty"`
	// Created are the settings files install created (there was none): uninstall removes one
	// again when nothing but hookctl's entries was ever in it, rather than leave a `{}` behind.
	Created []string `json:"created,omitempty"`
}

func loadSavedStatusLines(home string) (*savedStatusLines, error) {
	var s savedStatusLines
	b, err := fsutil.ReadFile(filepath.Join(home, statusLineFile), 1<<20, true)
	if errors.Is(err, fs.ErrNotExist) {
		return &savedStatusLines{Files: map[string]string{}}, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s is damaged: %v", filepath.Join(home, statusLineFile), err)
	}
	if s.Files == nil {
		s.Files = map[string]string{}
	}
	return &s, nil
}

func installRun(s *streams, opts *installOptions) error {
	env := hookEnv()
	if env.err != nil {
		return env.err
	}
	if env.binary == "" || env.userHome == "" {
		return errors.New("failed to find this binary's path or your home directory")
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	path, err := claude.SettingsPath(opts.Scope, env.userHome, cwd)
	if err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // edit the file a symlinked settings.json points at, not the link
	}
	text, mode, existed, err := agentkit.ReadSettingsFile(path)
	if err != nil {
		return err
	}
	saved, err := loadSavedStatusLines(env.home)
	if err != nil {
		return err
	}
	reg := claude.ScopeRegistration(opts.Scope, env.binary, linkedBinary(env.home))
	var out []byte
	var changed bool
	var prev string
	dropStatus := false // a shared install took out a hookctl status line an older install left
	if opts.Remove {
		out, changed, err = claude.Uninstall(text, env.binary, saved.Files[path])
	} else {
		out, changed, prev, err = claude.Install(text, reg)
		if err == nil && reg.Form == claude.FormShared {
			var dropped bool
			out, dropped, err = claude.UninstallStatusLine(out, env.binary, saved.Files[path])
			changed, dropStatus = changed || dropped, dropped
		}
	}
	if errors.Is(err, claude.ErrIgnoredByClient) {
		return fmt.Errorf("%s: %v.\nClaude Code does not read this file at all, so hookctl would never run; remove the comments or trailing commas, then run hookctl install again", path, err)
	}
	if err != nil {
		return fmt.Errorf("%s: %v (the file was not changed)", path, err)
	}

	// The managed settings bring their own command, which every user of the machine is offered;
	// every other scope shares the user's.
	cmdPath := claude.ReadonlyCommandPathFor(opts.Scope, env.userHome)
	cmdChange := claude.ReadonlyCommandChange(cmdPath, opts.Remove)
	keptFor := ""
	if cmdChange == "remove" && opts.Scope != "managed" {
		// The command is the user's, shared by every scope: uninstalling one scope keeps it while
		// another still registers hookctl (issue 11: uninstall --scope project broke the user's
		// install). A project elsewhere cannot be seen from here.
		if keptFor = claude.RegisteredElsewhere(env.userHome, cwd, path, env.binary); keptFor != "" {
			cmdChange = ""
		}
	}
	// What the hooks run (the link, for every scope but managed) and the way out without the
	// binary. Uninstall leaves both: another project's committed registration may still run
	// the link.
	link := linkedBinary(env.home)
	linkChange := ""
	if !opts.Remove && reg.Form != claude.FormPinned {
		if target, err := os.Readlink(link); err != nil || target != env.binary {
			linkChange = "link"
		}
	}
	script := filepath.Join(env.home, claude.UninstallScriptName)
	scriptChange := false
	if !opts.Remove {
		b, err := fsutil.ReadFile(script, 1<<20, true)
		scriptChange = err != nil || !bytes.Equal(b, claude.UninstallScript)
	}

	if opts.DryRun {
		if changed && opts.Remove && slices.Contains(saved.Created, path) && emptyObject(out) {
			fmt.Fprintf(s.out, "would remove %s, which hookctl install had created\n", path)
		} else if changed {
			fmt.Fprintf(s.out, "would change %s:\n%s", path, lineDiff(string(text), string(out)))
		} else {
			fmt.Fprintf(s.out, "%s: nothing to change\n", path)
		}
		if linkChange != "" {
			fmt.Fprintf(s.out, "would link %s to %s\n", link, env.binary)
		}
		if scriptChange {
			fmt.Fprintf(s.out, "would write %s\n", script)
		}
		if cmdChange != "" {
			fmt.Fprintf(s.out, "would %s %s\n", cmdChange, cmdPath)
		}
		if keptFor != "" {
			fmt.Fprintf(s.out, "would keep the /readonly command %s: hookctl is still registered in %s\n", cmdPath, keptFor)
		}
		fmt.Fprintln(s.out, "(dry run: nothing written)")
		return nil
	}

	// The link and the script first: a registration is never written that runs a link not
	// yet made.
	if linkChange != "" {
		if err := linkBinaryAt(link, env.binary); err != nil {
			return err
		}
		fmt.Fprintf(s.out, "linked %s to %s (the hooks run it)\n", link, env.binary)
	}
	if scriptChange {
		if err := os.MkdirAll(env.home, 0o700); err != nil {
			return err
		}
		if err := fsutil.WriteAtomic(script, claude.UninstallScript, 0o700); err != nil {
			return err
		}
	}

	created := slices.Contains(saved.Created, path)
	if changed && opts.Remove && created && emptyObject(out) {
		if err := os.Remove(path); err != nil {
			return err
		}
		fmt.Fprintf(s.out, "removed %s, which hookctl install had created\n", path)
		changed = false
		saved.Created = slices.DeleteFunc(saved.Created, func(p string) bool { return p == path })
	} else if changed && opts.Remove && created {
		// The user has written their own settings into it since: it is theirs now.
		saved.Created = slices.DeleteFunc(saved.Created, func(p string) bool { return p == path })
	}
	if changed && !opts.Remove && !existed && !created {
		saved.Created = append(saved.Created, path)
	}
	recordChanged := created != slices.Contains(saved.Created, path)

	if changed {
		backup := ""
		if existed && len(text) > 0 {
			if backup, err = backUp(env.home, opts.Scope, path, text); err != nil {
				return fmt.Errorf("failed to back up %s: %v (nothing changed)", path, err)
			}
		}
		if err := mkdir(opts.Scope, filepath.Dir(path)); err != nil {
			return err
		}
		if err := fsutil.WriteAtomic(path, out, mode); err != nil {
			return err
		}
		verb := "registered hookctl in"
		if opts.Remove {
			verb = "removed hookctl from"
		}
		fmt.Fprintf(s.out, "%s %s", verb, path)
		if backup != "" {
			fmt.Fprintf(s.out, " (backup: %s)", backup)
		}
		fmt.Fprintln(s.out)
	} else if !recordChanged {
		fmt.Fprintf(s.out, "%s: already up to date\n", path)
	}

	// Remember the status line install replaced, and forget it on uninstall.
	_, hadSaved := saved.Files[path]
	forget := (opts.Remove || dropStatus) && hadSaved
	switch {
	case !opts.Remove && prev != "":
		saved.Previous = prev
		saved.Files[path] = prev
		fmt.Fprintf(s.out, "your status line now runs after hookctl's badge; uninstall restores it\n")
	case forget:
		delete(saved.Files, path)
		saved.Previous = ""
		for _, v := range saved.Files {
			saved.Previous = v
		}
	}
	if !opts.Remove && prev != "" || forget || recordChanged {
		if err := os.MkdirAll(env.home, 0o700); err != nil {
			return err
		}
		b, _ := json.MarshalIndent(saved, "", "  ")
		if err := fsutil.WriteAtomic(filepath.Join(env.home, statusLineFile), append(b, '\n'), 0o600); err != nil {
			return err
		}
	}

	switch cmdChange {
	case "write":
		if err := mkdir(opts.Scope, filepath.Dir(cmdPath)); err != nil {
			return err
		}
		if err := fsutil.WriteAtomic(cmdPath, claude.ReadonlyCommand, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(s.out, "wrote the /readonly command to %s\n", cmdPath)
	case "update":
		if err := fsutil.WriteAtomic(cmdPath, claude.ReadonlyCommand, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(s.out, "updated the /readonly command %s\n", cmdPath)
	case "replace":
		old, err := fsutil.ReadFile(cmdPath, 1<<20, false)
		if err != nil {
			return err
		}
		backup, err := backUp(env.home, "command", cmdPath, old)
		if err != nil {
			return fmt.Errorf("failed to back up %s: %v", cmdPath, err)
		}
		if err := fsutil.WriteAtomic(cmdPath, claude.ReadonlyCommand, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(s.out, "replaced the /readonly command %s (yours is at %s)\n", cmdPath, backup)
	case "remove":
		if err := os.Remove(cmdPath); err != nil {
			return err
		}
		fmt.Fprintf(s.out, "removed the /readonly command %s\n", cmdPath)
	}
	if keptFor != "" {
		fmt.Fprintf(s.out, "kept the /readonly command %s: hookctl is still registered in %s\n", cmdPath, keptFor)
	}
	if opts.Remove {
		return nil
	}
	if reg.Form == claude.FormShared {
		fmt.Fprintf(s.out, "%s names no path of yours: commit it. Each member's own hookctl install (make install) links their "+
			"hookctl home's bin/hookctl, which it runs; for a member without one, every prompt is refused, saying how to install it\n", path)
	}
	fmt.Fprintf(s.out, "if the hookctl binary goes missing, Claude Code refuses every prompt; then `sh %s` removes hookctl's hooks without it\n", script)
	fmt.Fprintln(s.out, "new Claude Code sessions start 🔒 READ-ONLY; type /readonly off to let the agent edit")
	return nil
}

// mkdir makes the directories of a scope's settings or command: for the managed scope 0755
// whatever the umask, since they serve every user of the machine (Claude Code run by anyone but
// root could not read them otherwise); for the others as the user's umask says.
func mkdir(scope, dir string) error {
	if scope == "managed" {
		return fsutil.MkdirAllMode(dir, 0o755)
	}
	return os.MkdirAll(dir, 0o755)
}

// linkBinaryAt points link at binary, replacing what was there in one rename.
func linkBinaryAt(link, binary string) error {
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.tmp-%d", link, os.Getpid())
	os.Remove(tmp)
	if err := os.Symlink(binary, tmp); err != nil {
		return fmt.Errorf("failed to link %s: %w", link, err)
	}
	if err := os.Rename(tmp, link); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("failed to link %s: %w", link, err)
	}
	return nil
}

// backupsDir holds the backups install, uninstall and uninstall.sh make, under hookctl's home:
// never beside a project's settings, where they would be untracked files in the repository.
const backupsDir = "backups"

// backUp saves text, the content of path before install or uninstall changed it, as
// backups/<time>-<what>-<path with "/" as "-">, which sorts by time and names the file. It
// never replaces an earlier backup.
func backUp(home, what, path string, text []byte) (string, error) {
	dir := filepath.Join(home, backupsDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	name := time.Now().Format("20060102-150405") + "-" + what + "-" + strings.ReplaceAll(strings.TrimPrefix(path, "/"), "/", "-")
	for i := 1; ; i++ {
		p := filepath.Join(dir, name)
		if i > 1 {
			p += "-" + strconv.Itoa(i)
		}
		err := fsutil.CreateExclusive(p, text, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			return p, err
		}
	}
}

// emptyObject says whether settings text is a JSON object with nothing in it.
func emptyObject(text []byte) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(text, &m) == nil && m != nil && len(m) == 0
}

// lineDiff shows a change as the lines removed (-) and added (+), with the common lines at the
// edges trimmed to a little context. Settings files are small; this is not a general diff.
func lineDiff(a, b string) string {
	al, bl := strings.SplitAfter(a, "\n"), strings.SplitAfter(b, "\n")
	i := 0
	for i < len(al) && i < len(bl) && al[i] == bl[i] {
		i++
	}
	j := 0
	for j < len(al)-i && j < len(bl)-i && al[len(al)-1-j] == bl[len(bl)-1-j] {
		j++
	}
	var out strings.Builder
	for _, l := range al[max(0, i-2):i] {
		out.WriteString("  " + l)
	}
	for _, l := range al[i : len(al)-j] {
		out.WriteString("- " + l)
	}
	for _, l := range bl[i : len(bl)-j] {
		out.WriteString("+ " + l)
	}
	for _, l := range al[len(al)-j : min(len(al), len(al)-j+2)] {
		out.WriteString("  " + l)
	}
	s := out.String()
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}
