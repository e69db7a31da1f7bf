package egress

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// Bounds on what one command's proxy reports: the refusals the audit keeps one by one (the
// rest are counted), the length of one event line, and how long the proxy gets to finish its
// reports once the command has ended.
const (
	maxRefusalsAudited = 20
	maxEventLine       = 16 << 10
	stopWait           = 2 * time.Second
)

// Record is one entry of the audit of a command's network use: a host it reached (its
// connections counted, its bytes summed), a refusal, or the count of refusals past the ones
// listed.
type Record struct {
	Time        time.Time
	Host        string // host:port; empty on the count
	Outcome     string // allowed, refused, or failed (allowed, and it could not connect)
	Rule        string
	Error       string
	Connections int
	Received    int64
	Sent        int64
}

// Supervisor is the egress proxy serving one command, as its launcher sees it.
type Supervisor struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	read  chan struct{}
	log   *eventLog
}

// Supervise starts the egress proxy (worker's `egress` command: the retriever's worker, which
// has the network and no file access) serving listener, in the command's network namespace,
// with conf. The launcher keeps the file access: each refusal goes to stderr as it comes, for
// the model, and Stop returns what the audit keeps once the command has ended.
func Supervise(worker string, listener *os.File, conf Config, stderr io.Writer) (*Supervisor, error) {
	cmd := exec.Command(worker, "egress")
	cmd.ExtraFiles = []*os.File{listener}
	cmd.Env, cmd.Dir, cmd.Stderr = []string{}, "/", stderr
	diesWithParent(cmd)
	stdin, err1 := cmd.StdinPipe()
	stdout, err2 := cmd.StdoutPipe()
	if err := firstErr(err1, err2, cmd.Start()); err != nil {
		return nil, err
	}
	json.NewEncoder(stdin).Encode(conf)
	s := &Supervisor{cmd: cmd, stdin: stdin, read: make(chan struct{}),
		log: &eventLog{publish: conf.Publish, stderr: stderr, hosts: map[string]*Record{}}}
	go func() {
		defer close(s.read)
		s.log.read(stdout)
	}()
	return s, nil
}

// Stop ends the proxy (its input closes; it is killed if it has not finished its reports within
// stopWait) and returns the command's records: the refusals, then the hosts reached, then the
// count of refusals not listed.
func (s *Supervisor) Stop() []Record {
	s.stdin.Close()
	t := time.AfterFunc(stopWait, func() { s.cmd.Process.Kill() })
	<-s.read
	s.cmd.Wait()
	t.Stop()
	return s.log.records()
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// eventLog gathers one command's connections: one record per host admitted (connections
// counted, bytes summed), one per refusal up to maxRefusalsAudited.
type eventLog struct {
	publish  bool
	stderr   io.Writer
	hosts    map[string]*Record
	order    []string
	refused  []Record
	overflow int
}

func (l *eventLog) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxEventLine)
	for sc.Scan() {
		var ev Event
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		target := fmt.Sprintf("%s:%d", ev.Host, ev.Port)
		if !ev.Allowed {
			fmt.Fprintln(l.stderr, ev.Refusal(l.publish))
			if len(l.refused) == maxRefusalsAudited {
				l.overflow++
				continue
			}
			outcome := "refused"
			if ev.Rule != "" {
				outcome = "failed" // allowed, and it could not connect
			}
			l.refused = append(l.refused, Record{Time: time.Now(), Host: target, Outcome: outcome, Rule: ev.Rule, Error: ev.Reason, Connections: 1})
			continue
		}
		e := l.hosts[target]
		if e == nil {
			e = &Record{Time: time.Now(), Host: target, Outcome: "allowed", Rule: ev.Rule}
			l.hosts[target] = e
			l.order = append(l.order, target)
		}
		e.Connections++
		e.Received += ev.Received
		e.Sent += ev.Sent
	}
	io.Copy(io.Discard, r)
}

func (l *eventLog) records() []Record {
	out := l.refused
	for _, h := range l.order {
		out = append(out, *l.hosts[h])
	}
	if l.overflow > 0 {
		out = append(out, Record{Time: time.Now(), Outcome: "refused", Connections: l.overflow,
			Error: fmt.Sprintf("%d more refused connections, not listed", l.overflow)})
	}
	return out
}
