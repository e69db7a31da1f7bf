//go:build linux

package securerun

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hookctl/hookctl/sandbox"
	"github.com/hookctl/hookctl/sandbox/egress"
)

const (
	capSysAdmin = 21
	capNetAdmin = 12
	capSetpcap  = 8
)

// Supervise starts the launch and waits for it, tearing down everything it started: the
// launcher starts as the init of a pid namespace of its own (sandbox.ServeRunInit), which holds
// every process the command starts, whatever it does (setsid, a double fork, a main thread
// that exits), and ends with it. On a signal from Signals the init passes SIGTERM to every
// process of the run, and after Grace kills what is left (Interruption.Killed); when the
// command ends, the init kills what it left running (Outcome.Leftover). The counts come from
// the init's report.
func Supervise(l Launch) Outcome {
	var o Outcome
	select {
	case s := <-l.Signals:
		o.Interrupted = &Interruption{Signal: signalName(s), At: time.Now().UTC()}
		o.NotStarted = "interrupted before it started"
		return o
	default:
	}
	r, w, err := os.Pipe()
	if err != nil {
		o.NotStarted = fmt.Sprintf("failed to make the launcher's report pipe: %v", err)
		return o
	}
	cmd := exec.Command(l.Launcher[0], append(l.Launcher[1:], l.Argv...)...)
	cmd.Env, cmd.Dir = l.Env, l.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = l.Stdin, l.Stdout, l.Stderr
	// A recorded output is copied through a pipe, which a process the command left behind
	// could hold open: Wait gives up on it after this long, and the teardown kills it.
	cmd.WaitDelay = 2 * time.Second
	cmd.ExtraFiles = []*os.File{w} // descriptor 3: --status-fd 3
	// The kernel kills the run's init if the supervisor dies, however it dies, and with it
	// every process of the run. A user who is not root gets the pid namespace in a user
	// namespace mapping them to themselves, where the init may mount its /proc (and bring
	// loopback up); the launcher drops every capability before the command runs.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS}
	if os.Geteuid() != 0 {
		uid, gid := os.Getuid(), os.Getgid()
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		cmd.SysProcAttr.AmbientCaps = []uintptr{capSysAdmin, capNetAdmin, capSetpcap}
	}
	var handover, child *os.File
	if l.Broker != nil {
		// Model-only: the launcher starts in a network namespace of its own (for a user who is
		// not root, inside a user namespace mapping them to themselves, where it has the
		// capability to bring loopback up; it drops it before the exec) and hands the
		// broker's listener back on descriptor 4.
		pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			r.Close()
			w.Close()
			o.NotStarted = fmt.Sprintf("failed to make the network handover: %v", err)
			return o
		}
		handover, child = os.NewFile(uintptr(pair[0]), "handover"), os.NewFile(uintptr(pair[1]), "handover")
		defer handover.Close()
		cmd.ExtraFiles = append(cmd.ExtraFiles, child)
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWNET
	}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		if child != nil {
			child.Close()
		}
		o.NotStarted = fmt.Sprintf("failed to start hookctl's launcher in namespaces of its own: %v", err)
		return o
	}
	w.Close()
	var broker *brokerProcess
	brokerReady := make(chan *brokerProcess, 1)
	if child != nil {
		child.Close()
		go func() { brokerReady <- startBroker(handover, l) }()
	} else {
		brokerReady <- nil
	}
	reports := make(chan sandbox.LaunchReport, 1)
	go func() { reports <- readReport(r) }()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	var grace <-chan time.Time
	var waitErr error
wait:
	for {
		select {
		case s := <-l.Signals:
			if o.Interrupted == nil {
				o.Interrupted = &Interruption{Signal: signalName(s), At: time.Now().UTC()}
				cmd.Process.Signal(syscall.SIGTERM) // the init passes it to every process of the run
				grace = time.After(l.Grace)
			}
		case <-grace:
			cmd.Process.Signal(syscall.SIGUSR2) // the init kills them all, and says how many
			grace = nil
		case waitErr = <-waited:
			break wait
		}
	}
	rep := <-reports
	r.Close()
	// The launcher's end of the handover is closed by now (it exited, or exec closed it), so
	// a broker that never got its listener is known.
	broker = <-brokerReady
	if broker != nil {
		o.Network = broker.stop()
	} else if l.Broker != nil {
		o.Network = &NetworkUse{}
	}
	if rep.Leftover != nil {
		o.Leftover = *rep.Leftover
	}
	if o.Interrupted != nil && rep.Killed != nil {
		o.Interrupted.Killed = *rep.Killed
	}
	switch {
	case rep.Error != "":
		o.NotStarted = rep.Error
		return o
	case rep.Applied == nil:
		o.NotStarted = fmt.Sprintf("hookctl's launcher ended before it applied the sandbox (%v)", orExit(waitErr))
		return o
	}
	o.Started, o.Applied = true, rep.Applied
	o.Exit = &Exit{}
	if st := rep.Status; st != nil {
		o.Exit.Code = st.Code
		if st.Signal > 0 {
			o.Exit.Signal = signalName(syscall.Signal(st.Signal))
		}
	} else if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		o.Exit.Code, o.Exit.Signal = 128+int(ws.Signal()), signalName(ws.Signal())
	} else {
		o.Exit.Code = cmd.ProcessState.ExitCode()
	}
	return o
}

func orExit(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// readReport reads the launcher's report until the descriptor closes (at the command's exec, or
// when the launcher exits): the last line of each kind wins.
func readReport(r *os.File) sandbox.LaunchReport {
	var rep sandbox.LaunchReport
	eachJSONLine(r, func(line sandbox.LaunchReport) {
		if line.Applied != nil {
			rep.Applied = line.Applied
		}
		if line.Error != "" {
			rep.Error = line.Error
		}
		if line.Status != nil {
			rep.Status = line.Status
		}
		if line.Leftover != nil {
			rep.Leftover = line.Leftover
		}
		if line.Killed != nil {
			rep.Killed = line.Killed
		}
	})
	return rep
}

// eachJSONLine hands f each line of r, up to 64 KiB, decoded as a T, until r ends; a line that
// does not decode is passed over.
func eachJSONLine[T any](r io.Reader, f func(T)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 64<<10)
	for sc.Scan() {
		var v T
		if json.Unmarshal(sc.Bytes(), &v) == nil {
			f(v)
		}
	}
}

// signalName names s as runmeta.json records it (SIGINT).
func signalName(s os.Signal) string {
	if sig, ok := s.(syscall.Signal); ok {
		for _, n := range []struct {
			s    syscall.Signal
			name string
		}{{syscall.SIGINT, "SIGINT"}, {syscall.SIGTERM, "SIGTERM"}, {syscall.SIGHUP, "SIGHUP"}, {syscall.SIGKILL, "SIGKILL"},
			{syscall.SIGQUIT, "SIGQUIT"}, {syscall.SIGSEGV, "SIGSEGV"}, {syscall.SIGABRT, "SIGABRT"}, {syscall.SIGPIPE, "SIGPIPE"},
			{syscall.SIGSYS, "SIGSYS"}, {syscall.SIGBUS, "SIGBUS"}} {
			if n.s == sig {
				return n.name
			}
		}
		return "signal " + strconv.Itoa(int(sig))
	}
	return s.String()
}

// brokerProcess is the credential broker of a model-only run: the retriever's worker as
// `hookctl-network broker`, which holds the network and the credential and no file
// access, serving the listener the launcher made in the run's network namespace.
type brokerProcess struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	read  chan struct{}
	use   NetworkUse
	err   strings.Builder
}

// maxRefusalsRecorded bounds the refusals runmeta.json lists one by one.
const maxRefusalsRecorded = 20

// startBroker waits for the launcher's listener and starts the broker on it. It returns nil
// when the launcher sent none (it failed first; its report says why).
func startBroker(handover *os.File, l Launch) *brokerProcess {
	listener, err := sandbox.ReceiveListener(handover)
	if err != nil {
		return nil
	}
	defer listener.Close()
	b := &brokerProcess{read: make(chan struct{})}
	b.cmd = exec.Command(l.Worker, "broker")
	b.cmd.ExtraFiles = []*os.File{listener}
	b.cmd.Env, b.cmd.Dir = []string{}, "/"
	b.cmd.Stderr = &b.err
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdin, err1 := b.cmd.StdinPipe()
	stdout, err2 := b.cmd.StdoutPipe()
	err = errors.Join(err1, err2, b.cmd.Start())
	if err != nil {
		b.use.BrokerError = fmt.Sprintf("the broker did not start: %v", err)
		close(b.read)
		return b
	}
	b.stdin = stdin
	json.NewEncoder(stdin).Encode(l.Broker)
	go func() {
		defer close(b.read)
		eachJSONLine(stdout, b.count)
	}()
	return b
}

func (b *brokerProcess) count(e egress.BrokerEvent) {
	u := &b.use
	switch {
	case e.Refused != "":
		u.Refused++
		if len(u.Refusals) < maxRefusalsRecorded {
			u.Refusals = append(u.Refusals, e)
		}
	case e.Error != "" || e.Status >= 500:
		u.Failed++
	default:
		u.Requests++
	}
	u.Sent += e.Sent
	u.Received += e.Received
	if e.Model != "" && !slices.Contains(u.Models, e.Model) && len(u.Models) < maxRefusalsRecorded {
		u.Models = append(u.Models, e.Model)
	}
	if e.Client != "" && !slices.Contains(u.Clients, e.Client) && len(u.Clients) < maxRefusalsRecorded {
		u.Clients = append(u.Clients, e.Client)
	}
}

// stop ends the broker (its standard input closing is its signal) and returns what it saw.
func (b *brokerProcess) stop() *NetworkUse {
	if b.stdin == nil {
		return &b.use
	}
	b.stdin.Close()
	t := time.AfterFunc(2*time.Second, func() { b.cmd.Process.Kill() })
	<-b.read
	err := b.cmd.Wait()
	t.Stop()
	if err != nil && b.use.BrokerError == "" {
		b.use.BrokerError = strings.TrimSpace(fmt.Sprintf("%v: %s", err, b.err.String()))
	}
	return &b.use
}
