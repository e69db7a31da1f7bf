package secrets

import "strings"

// systemPath says what a path under /proc or /dev holds when it is a credential: another way to
// a process's environment, memory, command line or open files, or to a raw disk or the
// machine's memory. "" for everything else there (/proc/cpuinfo, /dev/null).
//
// Why: `awk 1 /proc/self/environ`, `cat /proc/*/environ`, `cat /dev/fd/../environ` printed the
// environment's tokens, and no rule covered these paths (issue 23, item 1). The judge cannot
// know which process /proc/self, /proc/thread-self or a number will be when the command runs,
// so every process is judged alike: only the files that show a process's state and no data of
// its own are left readable (procReadable). A disk or /dev/mem read as root holds every file.
func systemPath(p string) string {
	elems := split(p)
	if len(elems) < 2 || elems[0] != "/" {
		return ""
	}
	switch elems[1] {
	case "proc":
		return procPath(elems[2:])
	case "dev":
		if len(elems) > 2 && rawDevice(elems[2:]) {
			return "a raw disk or the machine's memory"
		}
	}
	return ""
}

// procPath judges the elements after /proc.
func procPath(rest []string) string {
	const what = "a process's environment, memory, command line or open files"
	if len(rest) == 0 {
		return "a directory holding every process's environment"
	}
	switch first := rest[0]; {
	case processDir(first):
		rest = rest[1:]
	case first == "kcore" || first == "kmem" || first == "mem":
		return "the machine's memory"
	default:
		return ""
	}
	if len(rest) == 0 {
		return what
	}
	if rest[0] == "task" {
		// /proc/PID/task/TID/… is the thread's view of the same files.
		if len(rest) < 3 {
			return what
		}
		rest = rest[2:]
	}
	if len(rest) == 1 && procReadable(rest[0]) {
		return ""
	}
	return what
}

// processDir reports whether a /proc entry is a process's directory: a number, self or
// thread-self.
func processDir(name string) bool {
	if name == "self" || name == "thread-self" {
		return true
	}
	for i := 0; i < len(name); i++ {
		if name[i] < '0' || name[i] > '9' {
			return false
		}
	}
	return name != ""
}

// procReadable are the files of a process's /proc directory that show its state and hold none of
// its data: no environment, argument, memory, descriptor or path of its.
func procReadable(name string) bool {
	switch name {
	case "stat", "statm", "status", "comm", "cgroup", "limits", "mountinfo", "mounts", "mountstats", "io",
		"oom_score", "oom_score_adj", "sched", "schedstat", "wchan", "loginuid", "sessionid", "cpuset", "personality":
		return true
	}
	return false
}

// rawDevice reports whether the elements after /dev name a disk, a partition or the machine's
// memory: a read of one holds every file on it, whatever the file modes say.
func rawDevice(rest []string) bool {
	first := rest[0]
	switch first {
	case "mem", "kmem", "port", "root", "disk", "block", "mapper":
		return true
	}
	for _, p := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "dm-", "md", "loop", "sr", "zram", "nbd", "rbd", "ram"} {
		if strings.HasPrefix(first, p) && len(first) > len(p) {
			return true
		}
	}
	return false
}
