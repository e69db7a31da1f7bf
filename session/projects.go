package session

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/internal/gitrepo"
	"github.com/hookctl/hookctl/sandbox/egress"
)

// The project's remotes, as edit mode's egress proxy admits them: the hosts of the project's
// git remotes when hookctl first saw a session there, recorded once per project in hookctl's
// home (which no agent can write), plus the hosts the human added with `hookctl remotes add`.
// Never what .git/config says later: edit mode may write it, and a remote an agent plants
// there (a pushurl, a new remote) must not open a host, in this session or the next.
//
// A project is its repository's main working tree (every worktree of a repository shares its
// record, as they share .git/config), or the session's directory where there is no
// repository: a repository an agent creates later in that directory is the same project,
// already recorded.

// projectsSubdir holds one record per project.
const projectsSubdir = "projects"

// maxProjectRecord caps a record as it is read.
const maxProjectRecord = 64 << 10

// ProjectRecord is one project's remotes.
type ProjectRecord struct {
	Project  string    `json:"project"`
	Recorded time.Time `json:"recorded"`
	// Remotes are the hosts of its git remotes when the record was made.
	Remotes []string `json:"remotes"`
	// Added are the hosts the human added since, each with when.
	Added []AddedRemote `json:"added,omitempty"`
	// From says where Remotes came from: "git config" at the first session, or "session
	// SHORTID" when an earlier session's own record (made before per-project records) was
	// taken.
	From string `json:"from"`
}

// AddedRemote is a host the human added to a project's remotes.
type AddedRemote struct {
	Host string    `json:"host"`
	Time time.Time `json:"time"`
}

// Hosts are the record's hosts, recorded and added.
func (r *ProjectRecord) Hosts() []string {
	hosts := slices.Clone(r.Remotes)
	for _, a := range r.Added {
		if !slices.Contains(hosts, a.Host) {
			hosts = append(hosts, a.Host)
		}
	}
	return hosts
}

// Projects is the records of the projects' remotes in hookctl's home.
type Projects struct{ Dir string }

// NewProjects is the records under home.
func NewProjects(home string) *Projects { return &Projects{Dir: filepath.Join(home, projectsSubdir)} }

// ProjectOf is the project of a session first seen in dir: its repository's main working tree,
// or dir.
func ProjectOf(dir string) string {
	if dir == "" {
		return ""
	}
	dir = filepath.Clean(dir)
	if _, common, ok := gitrepo.Dirs(dir); ok {
		if filepath.Base(common) == ".git" {
			return filepath.Dir(common)
		}
		return common
	}
	return dir
}

func (p *Projects) path(project string) string {
	sum := sha256.Sum256([]byte(project))
	return filepath.Join(p.Dir, hex.EncodeToString(sum[:12])+".json")
}

// Load reads the record of project, or ErrNoProject.
func (p *Projects) Load(project string) (*ProjectRecord, error) {
	b, err := fsutil.ReadFile(p.path(project), maxProjectRecord, true)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoProject
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read the remotes of %s: %w", project, err)
	}
	var r ProjectRecord
	if err := json.Unmarshal(b, &r); err != nil || r.Project != project {
		return nil, fmt.Errorf("the record of %s's remotes (%s) is damaged", project, p.path(project))
	}
	return &r, nil
}

// ErrNoProject is returned for a project with no record.
var ErrNoProject = errors.New("no record of the project's remotes")

// Note makes the record of the project of a session first seen in dir, if there is none: the
// hosts of its git remotes now — or, for a project whose sessions began before hookctl kept
// per-project records, what the earliest of them recorded at its start. It runs when the hook
// first sees a session, which a human started. A record already there is never changed.
func (p *Projects) Note(dir string, earlier func() []*Session) (*ProjectRecord, error) {
	project := ProjectOf(dir)
	if project == "" {
		return nil, errors.New("no project directory")
	}
	if r, err := p.Load(project); !errors.Is(err, ErrNoProject) {
		return r, err
	}
	r := &ProjectRecord{Project: project, Recorded: time.Now().UTC(), Remotes: ProjectRemotes(dir), From: "git config"}
	var first *Session
	for _, s := range earlier() {
		if s.Remotes != nil && ProjectOf(s.Cwd) == project && (first == nil || s.Started.Before(first.Started)) {
			first = s
		}
	}
	if first != nil {
		r.Remotes, r.From = first.Remotes, "session "+first.ID
	}
	if r.Remotes == nil {
		r.Remotes = []string{}
	}
	if err := os.MkdirAll(p.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("failed to create %s: %w", p.Dir, err)
	}
	b, _ := json.MarshalIndent(r, "", "  ")
	switch err := fsutil.CreateExclusive(p.path(project), append(b, '\n'), 0o600); {
	case err == nil:
		return r, nil
	case errors.Is(err, fs.ErrExist):
		return p.Load(project) // another hook recorded it first
	default:
		return nil, err
	}
}

// Add adds host (as edit mode's [network] allow spells one) to project's remotes, making the
// record if there is none. It is the human's act: the hook refuses `hookctl remotes add` to
// every agent, and edit mode's sandbox cannot write hookctl's home.
func (p *Projects) Add(project, host string) (*ProjectRecord, error) {
	rule, err := egress.ParseRule(host, "remote", false)
	if err != nil {
		return nil, err
	}
	host = rule.String()
	unlock, err := fsutil.Lock(p.path(project)+".lock", 2*time.Second)
	if err == nil {
		defer unlock()
	}
	r, err := p.Load(project)
	switch {
	case errors.Is(err, ErrNoProject):
		// No session was seen there yet: the record holds what the human adds, and nothing of
		// a git config no one vouched for.
		r = &ProjectRecord{Project: project, Recorded: time.Now().UTC(), Remotes: []string{}, From: "hookctl remotes add"}
	case err != nil:
		return nil, err
	}
	if !slices.Contains(r.Hosts(), host) {
		r.Added = append(r.Added, AddedRemote{Host: host, Time: time.Now().UTC()})
	}
	if err := os.MkdirAll(p.Dir, 0o700); err != nil {
		return nil, err
	}
	b, _ := json.MarshalIndent(r, "", "  ")
	return r, fsutil.WriteAtomic(p.path(project), append(b, '\n'), 0o600)
}

// RemotesFor are the hosts a session first seen in dir may reach as its project's remotes: its
// project's record; for a session from before records were kept, and whose project has none,
// what the session recorded at its start.
func (p *Projects) RemotesFor(sess *Session) []string {
	if r, err := p.Load(ProjectOf(sess.Cwd)); err == nil {
		return r.Hosts()
	}
	return sess.Remotes
}

// DescribeRemotes is a record's hosts for the user: "github.com, gitlab.example:8443".
func DescribeRemotes(r *ProjectRecord) string {
	parts := slices.Clone(r.Remotes)
	for _, a := range r.Added {
		parts = append(parts, a.Host+" (added "+a.Time.Local().Format("2006-01-02")+")")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// noteProject makes the record of the project of a session the store is recording, first seen
// in cwd, and returns its hosts for the session's own state. A failure leaves the session
// with none: edit mode then reaches the registries and the user's hosts, and doctor says why.
func (s *Store) noteProject(cwd string) []string {
	r, err := NewProjects(filepath.Dir(s.Dir)).Note(cwd, func() []*Session {
		list, _ := s.List()
		return list
	})
	if err != nil {
		return nil
	}
	return r.Hosts()
}

// ProjectRemotes are the hosts of the git remotes of the repository at or above dir (its
// .git/config, or a worktree's common directory's), for edit mode's egress proxy. No
// repository, or one that cannot be read, has none.
func ProjectRemotes(dir string) []string {
	cfg, ok := gitrepo.Config(dir)
	if !ok {
		return nil
	}
	return egress.RemoteHosts(cfg)
}
