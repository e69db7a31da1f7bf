//go:build linux && (amd64 || arm64)

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/hookctl/hookctl/internal/seccomp"
)

// The edit profile's filter hands two kinds of call to the sandbox's init, which answers them
// for the command by doing them itself, on the command's descriptors and with its own copy of
// the arguments (read once from the command's memory: what is checked is what is done):
//
//   - connect: Landlock (below ABI 9) does not govern pathname unix sockets, and a filter
//     cannot read the address. The init connects the command's socket itself, and refuses a
//     unix socket whose listener is not in the sandbox (its pid namespace): a tmux server, a
//     D-Bus bus, a container engine, an ssh-agent, anything a service outside listens on,
//     wherever its socket file is, under any name or link. The user's own list
//     (edit_unix_sockets, and the ssh agent's socket) is let through.
//   - every call that gives a directory entry a name (mkdir, symlink, rename, link and their
//     *at forms): the init makes it, unless the name is a client's settings directory (.claude,
//     .codex, .gemini, .qwen, .cursor, .copilot, and .github's hooks and copilot), which an
//     edit-mode command may not create anywhere: the next client started there would read it
//     (issue 22's sub/.claude with disableAllHooks). Landlock grants a tree, and cannot refuse
//     one name at every depth of it; a mount protects only what exists.
//
// The init shares the command's Landlock domain, user and mounts, and has no capabilities, so
// what it does for the command, the command could have done (but for the refusals).

// supervisor answers the filter's notifications.
type supervisor struct {
	listener int
	allow    map[fileKey]bool
	forbid   map[entryKey]string
	frozen   map[fileKey]string
	domain   chan<- func() // runs a function on the init's thread in the command's Landlock ruleset
	mu       sync.Mutex
	report   io.Writer // the command's stderr, until it exits
}

type fileKey struct{ dev, ino uint64 }

// socketKeys are the files the paths name, resolved now (links followed): the unix sockets
// outside the sandbox the command may connect to.
func socketKeys(paths []string) map[fileKey]bool {
	keys := map[fileKey]bool{}
	for _, p := range paths {
		var st syscall.Stat_t
		if p != "" && syscall.Stat(p, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFSOCK {
			keys[fileKey{uint64(st.Dev), st.Ino}] = true
		}
	}
	return keys
}

// quiet stops the reports (the command's stderr is closed for good).
func (s *supervisor) quiet() {
	s.mu.Lock()
	s.report = nil
	s.mu.Unlock()
}

func (s *supervisor) say(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.report != nil {
		fmt.Fprintf(s.report, "hookctl: "+format+"\n", args...)
	}
}

// inDomain runs op on the thread restricted as the command is (restrictInit), and returns its
// result: every file the supervisor makes for the command is made there.
func (s *supervisor) inDomain(op func() syscall.Errno) syscall.Errno {
	done := make(chan syscall.Errno, 1)
	s.domain <- func() { done <- op() }
	return <-done
}

// serve answers notifications until the listener fails (every process under the filter has
// exited).
func (s *supervisor) serve() {
	for {
		n, err := seccomp.Recv(s.listener)
		if err != nil {
			return // no process uses the filter any more (seccomp.ErrNoCallers), or the listener failed
		}
		go s.serveOne(n)
	}
}

// answer is what a supervised call returns: 0 unless it made a descriptor for the caller.
type answer struct {
	fd      int
	cloexec bool
}

// serveOne does one supervised call and answers it.
func (s *supervisor) serveOne(n seccomp.Notif) {
	c := &call{n: n, listener: s.listener, domain: s.inDomain}
	defer c.close()
	a, errno := s.do(c)
	if errno == 0 && a.fd > 0 {
		if err := seccomp.RespondFD(s.listener, n.ID, a.fd, a.cloexec); err != nil {
			seccomp.Respond(s.listener, n.ID, 0, errnoOf(err))
		}
		return
	}
	seccomp.Respond(s.listener, n.ID, 0, errno)
}

func (s *supervisor) do(c *call) (answer, syscall.Errno) {
	a := c.n.Data.Args
	fd := func(i int) int { return int(int32(a[i])) }
	switch int(c.n.Data.Nr) {
	case syscall.SYS_CONNECT:
		return answer{}, s.connect(c, fd(0), a[1], a[2])
	case syscall.SYS_OPENAT:
		return s.create(c, fd(0), a[1], int(int32(a[2])), uint32(a[3]))
	case syscall.SYS_MKDIRAT:
		return s.mkdir(c, fd(0), a[1], uint32(a[2]))
	case syscall.SYS_MKNODAT:
		return s.mknod(c, fd(0), a[1], uint32(a[2]), a[3])
	case syscall.SYS_SYMLINKAT:
		return s.symlink(c, a[0], fd(1), a[2])
	case syscall.SYS_RENAMEAT:
		return s.rename(c, fd(0), a[1], fd(2), a[3], 0)
	case nrRenameat2:
		return s.rename(c, fd(0), a[1], fd(2), a[3], uint32(a[4]))
	case syscall.SYS_LINKAT:
		return s.link(c, fd(0), a[1], fd(2), a[3], uint32(a[4]))
	}
	if legacy, ok := legacyNamed(int(c.n.Data.Nr)); ok {
		return legacy(s, c, a)
	}
	return answer{}, syscall.ENOSYS
}

// call is one notification being answered: the calling thread, and what was opened for it.
type call struct {
	n        seccomp.Notif
	listener int
	pidfd    int
	opened   []int
	domain   func(func() syscall.Errno) syscall.Errno // supervisor.inDomain
}

func (c *call) close() {
	for _, fd := range c.opened {
		syscall.Close(fd)
	}
	if c.pidfd > 0 {
		syscall.Close(c.pidfd)
	}
}

func (c *call) keep(fd int) int {
	c.opened = append(c.opened, fd)
	return fd
}

// valid says whether the call still waits: after anything read or opened by the thread's id,
// which could otherwise be another thread's by now.
func (c *call) valid() bool { return seccomp.Valid(c.listener, c.n.ID) }

// thread is a pidfd for the calling thread (its descriptors and memory).
func (c *call) thread() (int, error) {
	if c.pidfd > 0 {
		return c.pidfd, nil
	}
	const pidfdThread = syscall.O_EXCL // PIDFD_THREAD, Linux 6.9
	fd, _, e := syscall.Syscall(sysPidfdOpen, uintptr(c.n.Pid), pidfdThread, 0)
	if e == syscall.EINVAL {
		// An older kernel: the thread group's leader, whose descriptor table its threads share.
		tgid, err := threadGroup(int(c.n.Pid))
		if err != nil {
			return -1, err
		}
		fd, _, e = syscall.Syscall(sysPidfdOpen, uintptr(tgid), 0, 0)
	}
	if e != 0 {
		return -1, e
	}
	c.pidfd = int(fd)
	return c.pidfd, nil
}

func threadGroup(tid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return 0, err
	}
	_, rest, ok := bytes.Cut(b, []byte("\nTgid:\t"))
	if !ok {
		return 0, errors.New("no Tgid")
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	return strconv.Atoi(string(line))
}

// fd takes a copy of the caller's descriptor n.
func (c *call) fd(n int) (int, syscall.Errno) {
	pidfd, err := c.thread()
	if err != nil {
		return -1, errnoOf(err)
	}
	fd, _, e := syscall.Syscall(sysPidfdGetfd, uintptr(pidfd), uintptr(n), 0)
	if e != 0 {
		return -1, e
	}
	syscall.CloseOnExec(int(fd))
	return c.keep(int(fd)), 0
}

// dir is the directory a path given with dirfd is resolved from, as a descriptor of this
// process: AT_FDCWD is the caller's working directory; an absolute path needs none.
func (c *call) dir(dirfd int, path string) (int, syscall.Errno) {
	switch {
	case strings.HasPrefix(path, "/"):
		return atFdcwd, 0
	case dirfd == atFdcwd:
		fd, err := syscall.Open("/proc/"+strconv.Itoa(int(c.n.Pid))+"/cwd", oPath|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return -1, errnoOf(err)
		}
		return c.keep(fd), 0
	}
	return c.fd(dirfd)
}

// mem reads n bytes of the caller's memory at addr.
func (c *call) mem(addr uint64, n int) ([]byte, syscall.Errno) {
	buf := make([]byte, n)
	if n == 0 {
		return buf, 0
	}
	local := syscall.Iovec{Base: &buf[0]}
	local.SetLen(n)
	remote := struct {
		base uintptr
		len  uint64
	}{uintptr(addr), uint64(n)}
	got, _, e := syscall.Syscall6(nrProcessVMReadv, uintptr(c.n.Pid), uintptr(unsafe.Pointer(&local)), 1,
		uintptr(unsafe.Pointer(&remote)), 1, 0)
	if e != 0 {
		return nil, syscall.EFAULT
	}
	return buf[:got], 0
}

// path reads the NUL-terminated path at addr (at most PATH_MAX bytes, a page at a time: the
// string may end just before an unmapped page).
func (c *call) path(addr uint64) (string, syscall.Errno) {
	const pathMax, page = 4096, 4096
	var out []byte
	for len(out) < pathMax {
		n := page - int((addr+uint64(len(out)))%page)
		b, errno := c.mem(addr+uint64(len(out)), n)
		if errno != 0 || len(b) == 0 {
			return "", syscall.EFAULT
		}
		if i := bytes.IndexByte(b, 0); i >= 0 {
			return string(append(out, b[:i]...)), 0
		}
		out = append(out, b...)
	}
	return "", syscall.ENAMETOOLONG
}

// umask is the caller's file mode creation mask.
func (c *call) umask() uint32 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(int(c.n.Pid)) + "/status")
	if err != nil {
		return 0o022
	}
	_, rest, ok := bytes.Cut(b, []byte("\nUmask:\t"))
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	m, err := strconv.ParseUint(string(line), 8, 32)
	if !ok || err != nil {
		return 0o022
	}
	return uint32(m)
}

const (
	atFdcwd       = -100
	oPath         = 0x200000
	sysPidfdOpen  = 434
	sysPidfdGetfd = 438
	soDomain      = 39
	soPeercred    = 17
)

func errnoOf(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return syscall.EIO
}

// connect connects the caller's socket fd to the address at addr, as the caller asked, unless it
// is a unix socket that a process outside the sandbox listens on (see the file's comment).
func (s *supervisor) connect(c *call, fd int, addr, addrlen uint64) syscall.Errno {
	if addrlen > 128 { // sizeof(struct sockaddr_storage)
		return syscall.EINVAL
	}
	sa, errno := c.mem(addr, int(addrlen))
	if errno != 0 || len(sa) != int(addrlen) {
		return syscall.EFAULT
	}
	sock, errno := c.fd(fd)
	if errno != 0 {
		return errno
	}
	if !c.valid() {
		return syscall.EINTR
	}
	domain, err := syscall.GetsockoptInt(sock, syscall.SOL_SOCKET, soDomain)
	if err != nil {
		return errnoOf(err)
	}
	switch {
	case domain == syscall.AF_UNIX && len(sa) > 2 && sa[2] != 0:
		return s.connectUnix(c, fd, sock, sa)
	case domain == syscall.AF_UNIX && len(sa) > 2:
		// An abstract name: there is no file to hold on to, and the name is the listener's
		// alone while it listens.
		name := string(sa[3:])
		return s.connectInside(c, fd, sock, &syscall.SockaddrUnix{Name: "@" + name}, "@"+strings.TrimRight(name, "\x00"))
	}
	// Any other address, as the caller gave it: TCP reaches only the command's own network
	// namespace, and the egress proxy there.
	return rawConnect(sock, sa)
}

func rawConnect(fd int, sa []byte) syscall.Errno {
	var p unsafe.Pointer
	if len(sa) > 0 {
		p = unsafe.Pointer(&sa[0])
	}
	_, _, e := syscall.Syscall(syscall.SYS_CONNECT, uintptr(fd), uintptr(p), uintptr(len(sa)))
	return e
}

// connectUnix connects the caller's socket fd (sock, a copy) to the pathname unix socket sa
// names: the socket file is opened once (links followed, as connect follows them), and the
// connection goes to that file through /proc/self/fd, so nothing the command does in between
// can redirect it.
func (s *supervisor) connectUnix(c *call, fd, sock int, sa []byte) syscall.Errno {
	name := sa[2:]
	if i := bytes.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	path := string(name)
	dir, errno := c.dir(atFdcwd, path)
	if errno != 0 {
		return errno
	}
	file, errno := c.openPath(dir, path, 0)
	if errno != 0 {
		return errno
	}
	c.keep(file)
	var st syscall.Stat_t
	if err := syscall.Fstat(file, &st); err != nil {
		return errnoOf(err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		return syscall.ECONNREFUSED
	}
	via := &syscall.SockaddrUnix{Name: "/proc/self/fd/" + strconv.Itoa(file)}
	if s.allow[fileKey{uint64(st.Dev), st.Ino}] {
		return errnoOf0(syscall.Connect(sock, via)) // the user's list: the caller's own socket
	}
	return s.connectInside(c, fd, sock, via, path)
}

// connectInside connects a socket of the supervisor's own, like the caller's, to addr, and if
// the process that listens there is in the sandbox's pid namespace puts it in the caller's
// place (its descriptor number, and its status flags): the listener sees one connection, the
// one the caller uses. A listener outside the namespace shows as pid 0 and is refused (it has
// seen a connection open and close). Socket options set before connect are carried over for
// the usual ones only (buffer sizes, time-outs, SO_PASSCRED).
func (s *supervisor) connectInside(c *call, fd, sock int, addr syscall.Sockaddr, what string) syscall.Errno {
	typ, err := syscall.GetsockoptInt(sock, syscall.SOL_SOCKET, syscall.SO_TYPE)
	if err != nil {
		return errnoOf(err)
	}
	status, err := fcntl(sock, syscall.F_GETFL, 0)
	if err != nil {
		return errnoOf(err)
	}
	ours, err := syscall.Socket(syscall.AF_UNIX, typ|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return errnoOf(err)
	}
	c.keep(ours)
	for _, o := range []int{syscall.SO_PASSCRED, syscall.SO_SNDBUF, syscall.SO_RCVBUF} {
		if v, err := syscall.GetsockoptInt(sock, syscall.SOL_SOCKET, o); err == nil {
			syscall.SetsockoptInt(ours, syscall.SOL_SOCKET, o, v)
		}
	}
	for _, o := range []int{syscall.SO_SNDTIMEO, syscall.SO_RCVTIMEO} {
		var tv syscall.Timeval
		size := uint32(unsafe.Sizeof(tv))
		if _, _, e := syscall.Syscall6(syscall.SYS_GETSOCKOPT, uintptr(sock), syscall.SOL_SOCKET, uintptr(o), uintptr(unsafe.Pointer(&tv)), uintptr(unsafe.Pointer(&size)), 0); e == 0 {
			syscall.SetsockoptTimeval(ours, syscall.SOL_SOCKET, o, &tv)
		}
	}
	if status&syscall.O_NONBLOCK != 0 {
		syscall.SetNonblock(ours, true) // a full backlog answers EAGAIN, as the caller's would
	}
	if err := syscall.Connect(ours, addr); err != nil {
		return errnoOf(err)
	}
	cred, err := syscall.GetsockoptUcred(ours, syscall.SOL_SOCKET, soPeercred)
	if err != nil {
		return errnoOf(err)
	}
	if cred.Pid == 0 {
		s.say("refused a connection to %s: a unix socket of a service outside edit mode's sandbox (a terminal multiplexer, "+
			"a session bus, a container engine, an agent) could run commands outside it; the user lets one through with "+
			"edit_unix_sockets in hookctl's config", what)
		return syscall.EACCES
	}
	fcntl(ours, syscall.F_SETFL, status)
	if !c.valid() {
		return syscall.EINTR
	}
	if err := seccomp.ReplaceFD(c.listener, c.n.ID, ours, fd, c.cloexec(fd)); err != nil {
		return errnoOf(err)
	}
	return 0
}

func fcntl(fd, cmd, arg int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), uintptr(cmd), uintptr(arg))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// cloexec says whether the caller's descriptor fd is close-on-exec (its fdinfo's flags).
func (c *call) cloexec(fd int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(int(c.n.Pid)) + "/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return false
	}
	_, rest, ok := bytes.Cut(b, []byte("flags:\t"))
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	flags, err := strconv.ParseUint(string(line), 8, 64)
	return ok && err == nil && flags&syscall.O_CLOEXEC != 0
}

// entryKey names a directory entry by its directory (device and inode) and its name.
type entryKey struct {
	dev, ino uint64
	name     string
}

// entry resolves a path argument to the directory it names an entry in, opened once (links
// followed, as the kernel follows them before the last component), and the entry's name: the
// check and the call both go from that descriptor. A path that names no entry ("/", "")
// comes back whole, beneath dir.
func (c *call) entry(dirfd int, addr uint64) (parent int, base, path string, errno syscall.Errno) {
	if path, errno = c.path(addr); errno != 0 {
		return -1, "", "", errno
	}
	dir, errno := c.dir(dirfd, path)
	if errno != 0 {
		return -1, "", "", errno
	}
	parent, base, errno = c.split(dir, path)
	return parent, base, path, errno
}

// split is entry's second half, for a path already read.
func (c *call) split(dir int, path string) (int, string, syscall.Errno) {
	trimmed := strings.TrimRight(path, "/")
	if trimmed == "" {
		return dir, path, 0
	}
	slash := path[len(trimmed):]
	i := strings.LastIndexByte(trimmed, '/')
	parentPath, base := ".", trimmed
	if i >= 0 {
		parentPath, base = trimmed[:i], trimmed[i+1:]
		if parentPath == "" {
			parentPath = "/"
		}
	}
	fd, errno := c.openPath(dir, parentPath, syscall.O_DIRECTORY)
	if errno != 0 {
		return -1, "", errno
	}
	return c.keep(fd), base + slash, 0
}

// openPath opens path beneath dir as an O_PATH descriptor, on the thread restricted as the
// command is and without capabilities: the path is walked with the command's permissions
// (the init's other threads keep capabilities that could search what the command may not).
func (c *call) openPath(dir int, path string, flags int) (int, syscall.Errno) {
	fd := -1
	errno := c.domain(func() syscall.Errno {
		var err error
		fd, err = syscall.Openat(dir, path, oPath|flags|syscall.O_CLOEXEC, 0)
		return errnoOf0(err)
	})
	return fd, errno
}

// refused says why an edit-mode command may not give the entry base in directory parent a
// name, or "": a client's settings directory, anywhere; or a file that runs later outside
// the sandbox (a git hook, an auto-run file: Profile.Frozen) that does not exist yet.
func (s *supervisor) refused(parent int, base string) string {
	name := strings.TrimRight(base, "/")
	if isClientDir(name) {
		return "a client's settings directory, which the next session started there would read (its hooks and permissions)"
	}
	if real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(parent)); err == nil {
		for _, c := range strings.Split(real, "/") {
			if isClientDir(c) {
				return "a client's settings (in " + real + "), which the next session started there would read"
			}
		}
	}
	for _, n := range githubNames {
		if strings.EqualFold(name, n) {
			real, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(parent))
			if strings.EqualFold(filepath.Base(real), ".github") {
				return "Copilot's hooks or settings directory, which the next session started there would read"
			}
		}
	}
	if len(s.forbid) > 0 {
		var st syscall.Stat_t
		if syscall.Fstat(parent, &st) == nil {
			if why, ok := s.forbid[entryKey{uint64(st.Dev), st.Ino, name}]; ok {
				return why
			}
		}
	}
	return ""
}

// readOnly says why a write in directory parent failed as read-only, when a frozen directory
// holds it; "" otherwise (a read-only file system of the user's own).
func (s *supervisor) readOnly(parent int) string {
	fd, err := syscall.Dup(parent)
	if err != nil {
		return ""
	}
	for depth := 0; depth < 32; depth++ {
		var st syscall.Stat_t
		if syscall.Fstat(fd, &st) != nil {
			break
		}
		if why, ok := s.frozen[fileKey{uint64(st.Dev), st.Ino}]; ok {
			syscall.Close(fd)
			return why
		}
		up, err := syscall.Openat(fd, "..", oPath|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		syscall.Close(fd)
		if err != nil {
			return ""
		}
		var ust syscall.Stat_t
		if syscall.Fstat(up, &ust) == nil && ust.Dev == st.Dev && ust.Ino == st.Ino {
			syscall.Close(up)
			return "" // the root
		}
		fd = up
	}
	syscall.Close(fd)
	return ""
}

// said reports, for a call that failed as read-only in parent, why, when hookctl froze it.
func (s *supervisor) said(path string, parent int, errno syscall.Errno) syscall.Errno {
	if errno == syscall.EROFS {
		if why := s.readOnly(parent); why != "" {
			s.say("refused to create or write %s: %s", path, why)
		}
	}
	return errno
}

func (s *supervisor) refuse(path, why string) (answer, syscall.Errno) {
	s.say("refused to create or write %s: %s", path, why)
	return answer{}, syscall.EACCES
}

// makeEntry resolves the directory entry the path at addr names (from dirfd), refuses it when it
// is one an edit-mode command may not make (refused), and otherwise runs op on it on the thread
// restricted as the command is.
func (s *supervisor) makeEntry(c *call, dirfd int, addr uint64, op func(parent int, base string) syscall.Errno) (answer, syscall.Errno) {
	parent, base, path, errno := c.entry(dirfd, addr)
	if errno != 0 {
		return answer{}, errno
	}
	if why := s.refused(parent, base); why != "" {
		return s.refuse(path, why)
	}
	if !c.valid() {
		return answer{}, syscall.EINTR
	}
	return answer{}, s.said(path, parent, s.inDomain(func() syscall.Errno { return op(parent, base) }))
}

func (s *supervisor) mkdir(c *call, dirfd int, addr uint64, mode uint32) (answer, syscall.Errno) {
	mode &^= c.umask()
	return s.makeEntry(c, dirfd, addr, func(parent int, base string) syscall.Errno {
		return errnoOf0(syscall.Mkdirat(parent, base, mode))
	})
}

func (s *supervisor) mknod(c *call, dirfd int, addr uint64, mode uint32, dev uint64) (answer, syscall.Errno) {
	mode &^= c.umask() & 0o777
	return s.makeEntry(c, dirfd, addr, func(parent int, base string) syscall.Errno {
		return errnoOf0(syscall.Mknodat(parent, base, mode, int(dev)))
	})
}

func (s *supervisor) symlink(c *call, targetAddr uint64, dirfd int, addr uint64) (answer, syscall.Errno) {
	target, errno := c.path(targetAddr)
	if errno != 0 {
		return answer{}, errno
	}
	p0, _ := syscall.BytePtrFromString(target)
	return s.makeEntry(c, dirfd, addr, func(parent int, base string) syscall.Errno {
		p1, _ := syscall.BytePtrFromString(base)
		_, _, e := syscall.Syscall(syscall.SYS_SYMLINKAT, uintptr(unsafe.Pointer(p0)), uintptr(parent), uintptr(unsafe.Pointer(p1)))
		return e
	})
}

const renameExchange = 1 << 1

func (s *supervisor) rename(c *call, olddirfd int, oldAddr uint64, newdirfd int, newAddr uint64, flags uint32) (answer, syscall.Errno) {
	oldParent, oldBase, oldPath, errno := c.entry(olddirfd, oldAddr)
	if errno != 0 {
		return answer{}, errno
	}
	newParent, newBase, newPath, errno := c.entry(newdirfd, newAddr)
	if errno != 0 {
		return answer{}, errno
	}
	if why := s.refused(newParent, newBase); why != "" {
		return s.refuse(newPath, why)
	}
	if why := s.refused(oldParent, oldBase); flags&renameExchange != 0 && why != "" {
		return s.refuse(oldPath, why)
	}
	if !c.valid() {
		return answer{}, syscall.EINTR
	}
	p0, _ := syscall.BytePtrFromString(oldBase)
	p1, _ := syscall.BytePtrFromString(newBase)
	return answer{}, s.said(newPath, newParent, s.inDomain(func() syscall.Errno {
		_, _, e := syscall.Syscall6(nrRenameat2, uintptr(oldParent), uintptr(unsafe.Pointer(p0)), uintptr(newParent), uintptr(unsafe.Pointer(p1)), uintptr(flags), 0)
		return e
	}))
}

const (
	atSymlinkFollow = 0x400
	atEmptyPath     = 0x1000
)

func (s *supervisor) link(c *call, olddirfd int, oldAddr uint64, newdirfd int, newAddr uint64, flags uint32) (answer, syscall.Errno) {
	oldPath, errno := c.path(oldAddr)
	if errno != 0 {
		return answer{}, errno
	}
	var oldDir int
	if flags&atEmptyPath != 0 && oldPath == "" {
		// The caller's descriptor itself: linked through this process's /proc/self/fd, which
		// needs no privilege where AT_EMPTY_PATH would.
		fd, errno := c.fd(olddirfd)
		if errno != 0 {
			return answer{}, errno
		}
		oldDir, oldPath, flags = atFdcwd, "/proc/self/fd/"+strconv.Itoa(fd), flags&^atEmptyPath|atSymlinkFollow
	} else if oldDir, errno = c.dir(olddirfd, oldPath); errno != 0 {
		return answer{}, errno
	}
	p0, _ := syscall.BytePtrFromString(oldPath)
	return s.makeEntry(c, newdirfd, newAddr, func(parent int, base string) syscall.Errno {
		p1, _ := syscall.BytePtrFromString(base)
		_, _, e := syscall.Syscall6(syscall.SYS_LINKAT, uintptr(oldDir), uintptr(unsafe.Pointer(p0)), uintptr(parent), uintptr(unsafe.Pointer(p1)), uintptr(flags), 0)
		return e
	})
}

// create opens path with flags, which hold O_CREAT, as the caller asked, and hands the caller
// the descriptor. A last component that is a link is followed here, one link at a time, each
// target checked as a name of its own (as the kernel would follow it to make the file it names).
func (s *supervisor) create(c *call, dirfd int, addr uint64, flags int, mode uint32) (answer, syscall.Errno) {
	parent, base, path, errno := c.entry(dirfd, addr)
	if errno != 0 {
		return answer{}, errno
	}
	mode &^= c.umask()
	for hops := 0; hops <= 40; hops++ {
		if why := s.refused(parent, base); why != "" {
			return s.refuse(path, why)
		}
		if !c.valid() {
			return answer{}, syscall.EINTR
		}
		fd := -1
		err := s.inDomain(func() syscall.Errno {
			var err error
			fd, err = syscall.Openat(parent, base, flags|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, mode)
			return errnoOf0(err)
		})
		if err == 0 {
			return answer{fd: c.keep(fd), cloexec: flags&syscall.O_CLOEXEC != 0}, 0
		}
		if err != syscall.ELOOP || flags&(syscall.O_NOFOLLOW|syscall.O_EXCL) != 0 {
			return answer{}, s.said(path, parent, err)
		}
		// The last component is a link: where it points is the file to make (or open).
		buf := make([]byte, 4096)
		n, rerr := readlinkat(parent, base, buf)
		if rerr != nil {
			return answer{}, errnoOf(rerr)
		}
		path = string(buf[:n])
		if parent, base, errno = c.split(parent, path); errno != 0 {
			return answer{}, errno
		}
	}
	return answer{}, syscall.ELOOP
}

func readlinkat(dir int, name string, buf []byte) (int, error) {
	p, _ := syscall.BytePtrFromString(name)
	n, _, e := syscall.Syscall6(syscall.SYS_READLINKAT, uintptr(dir), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func errnoOf0(err error) syscall.Errno {
	if err == nil {
		return 0
	}
	return errnoOf(err)
}

// supervisedRules are the edit filter's notifications: connect, and the calls that name a
// directory entry (an open only with O_CREAT; legacyNamedCalls adds amd64's older forms).
// openat2 passes its flags in memory the filter cannot read: ENOSYS, so that callers fall
// back to openat.
func supervisedRules() []seccomp.Rule {
	calls := append([]sys{{"connect", syscall.SYS_CONNECT}, {"mkdirat", syscall.SYS_MKDIRAT}, {"mknodat", syscall.SYS_MKNODAT},
		{"symlinkat", syscall.SYS_SYMLINKAT}, {"renameat", syscall.SYS_RENAMEAT}, {"renameat2", nrRenameat2},
		{"linkat", syscall.SYS_LINKAT}}, legacyNamedCalls...)
	var rules []seccomp.Rule
	for _, c := range calls {
		rules = append(rules, seccomp.Rule{Name: c.name + " (supervised)", Nr: c.nr, Notify: true})
	}
	rules = append(rules, seccomp.Rule{Name: "openat (O_CREAT, supervised)", Nr: syscall.SYS_OPENAT, Notify: true,
		When: []seccomp.Cond{{Arg: 2, Op: seccomp.NonZero, Mask: syscall.O_CREAT}}},
		seccomp.Rule{Name: "openat2", Nr: nrOpenat2, Errno: syscall.ENOSYS})
	return append(rules, legacyOpenRules()...)
}

// assembleEdit is the edit profile's filter program: editRules, the supervised calls, and no
// unix datagram socket (a datagram's address is honoured even on a connected pair, and would
// reach a service outside, such as the journal, past the supervisor).
func assembleEdit() ([]seccomp.Instruction, error) {
	rules := append(editRules(), supervisedRules()...)
	for _, c := range []sys{{"socket", syscall.SYS_SOCKET}, {"socketpair", syscall.SYS_SOCKETPAIR}} {
		rules = append(rules, seccomp.Rule{Name: c.name + " (unix datagram)", Nr: c.nr, Errno: syscall.EPERM,
			When: []seccomp.Cond{{Arg: 0, Op: seccomp.In, Values: []uint32{afUnix}},
				{Arg: 1, Op: seccomp.NotIn, Mask: sockTypeMask, Values: []uint32{sockStream, sockSeqpacket}}}})
	}
	sortRules(rules)
	return seccomp.Assemble(filterArch, rules)
}

func installListener(prog []seccomp.Instruction) (int, error) { return seccomp.InstallListener(prog) }
