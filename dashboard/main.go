package dashboard

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/session"
)

// Executable is the dashboard's executable, installed next to hookctl's (make install), which
// `hookctl dashboard` runs.
const Executable = "hookctl-dashboard"

// clientSessionVar is what Claude Code sets in the environment of the commands it runs, the
// user's `! cmd` included, naming the session.
const clientSessionVar = "CLAUDE_CODE_SESSION_ID"

// Main is hookctl-dashboard: it refuses to run inside an agent client's session, listens on
// 127.0.0.1, prints the address with the token once, optionally opens the browser, and serves
// until killed.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hookctl dashboard", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("port", 0, "the port on 127.0.0.1 (default: a free one)")
	open := fs.Bool("open", false, "open the dashboard in the browser (xdg-open)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := run(*port, *open, stdout); err != nil {
		fmt.Fprintln(stderr, "hookctl dashboard:", err)
		return 1
	}
	return 0
}

func run(port int, open bool, stdout io.Writer) error {
	home, err := config.Home()
	if err != nil {
		return err
	}
	store := session.NewStore(home)
	// What a command typed in the client prints goes to the model, and the token with it; and
	// the agent's own commands run there too. The dashboard starts only in a terminal of its
	// own. (The environment alone can only make it refuse.)
	if id, _, ok := store.ClientSession(os.Getpid()); ok || os.Getenv(clientSessionVar) != "" {
		if !ok {
			id = os.Getenv(clientSessionVar)
		}
		return fmt.Errorf("this runs inside the agent session %s, whose output the model reads, token included; "+
			"run hookctl dashboard in a terminal outside the agent's client", store.Short(id))
	}
	l, port, err := Listen(port)
	if err != nil {
		return err
	}
	s, err := New(home, hookctlBeside(), port)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "hookctl dashboard: %s\n", s.URL())
	fmt.Fprintln(stdout, "  The address carries the token, which lives in this process only and is shown once: whoever has it can change your sessions' modes. Ctrl-C stops the dashboard.")
	if open {
		u, err := s.OneTimeURL()
		if err == nil {
			err = openBrowser(u)
		}
		if err != nil {
			fmt.Fprintln(stdout, "  could not open the browser:", err)
		}
	}
	return s.Serve(l)
}

// hookctlBeside is the hookctl executable next to this one, for the sandbox probe, or "".
func hookctlBeside() string {
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(self); err == nil {
		self = r
	}
	p := filepath.Join(filepath.Dir(self), "hookctl")
	if fi, err := os.Stat(p); err != nil || fi.IsDir() {
		return ""
	}
	return p
}

// openBrowser starts the desktop's browser on u (a one-time address: its command line is
// readable by the user's other processes).
func openBrowser(u string) error {
	p, err := exec.LookPath("xdg-open")
	if err != nil {
		return errors.New("no xdg-open on PATH; open the address above")
	}
	cmd := exec.Command(p, u)
	cmd.Stdout, cmd.Stderr = nil, nil
	return cmd.Start()
}
