package programs

import "testing"

// TestPlutilNeverWrites: plutil finds its verb anywhere among the words, so a write verb is
// refused wherever it stands, and -extract must print to standard output (trusty-mpm's
// incident: -extract … json without -o - overwrote the file).
func TestPlutilNeverWrites(t *testing.T) {
	check(t, true,
		r("plutil", "-p", "Info.plist"),
		r("plutil", "-p", "a.plist", "b.plist"),
		r("plutil", "-lint", "Info.plist"),
		r("plutil", "-lint", "-s", "Info.plist"),
		r("plutil", "-extract", "CFBundleVersion", "raw", "-o", "-", "Info.plist"),
		r("plutil", "-extract", "NSAppTransportSecurity", "json", "-o", "-", "-r", "Info.plist"),
		r("plutil", "-type", "CFBundleVersion", "Info.plist"),
		r("plutil", "-p", "--", "-odd.plist"),
		r("plutil", "-help"),
	)
	check(t, false,
		r("plutil", "-extract", "CFBundleVersion", "json", "Info.plist").because("overwrites the file"), // the incident
		r("plutil", "-extract", "K", "json", "-o", "out.json", "Info.plist").because("only -o -"),       // writes another file
		r("plutil", "-convert", "json", "Info.plist").because("rewrites the file"),
		r("plutil", "-p", "Info.plist", "-convert", "xml1").because("rewrites the file"), // the verb after the file
		r("plutil", "-insert", "K", "-string", "v", "f.plist").because("writes a value"),
		r("plutil", "-replace", "K", "-bool", "YES", "f.plist").because("writes a value"),
		r("plutil", "-remove", "K", "f.plist").because("removes a value"),
		r("plutil", "-create", "xml1", "new.plist").because("writes a new file"),
		r("plutil", "-extract", "K", "json", "-o", "-", "-e", "json", "f").because("extension"),
		r("plutil", "-p", "-s", "f").because("not allowed here"),
		r("plutil", "-p").because("needs a file"),
		r("plutil", "Info.plist").because("not a reading verb"),
	)
}

// TestDefaultsReadOnly: defaults reads preferences; write, delete, import, rename and export
// change them or write a file.
func TestDefaultsReadOnly(t *testing.T) {
	check(t, true,
		r("defaults", "read"),
		r("defaults", "read", "com.apple.dock"),
		r("defaults", "read", "com.apple.dock", "autohide"),
		r("defaults", "read", "-g", "AppleInterfaceStyle"),
		r("defaults", "-currentHost", "read", "-globalDomain"),
		r("defaults", "read-type", "com.apple.dock", "autohide"),
		r("defaults", "read", "-app", "Safari"),
		r("defaults", "domains"),
		r("defaults", "find", "dock"),
	)
	check(t, false,
		r("defaults", "write", "com.apple.dock", "autohide", "-bool", "true").because("changes preferences"),
		r("defaults", "delete", "com.apple.dock").because("changes preferences"),
		r("defaults", "import", "com.apple.dock", "f.plist").because("changes preferences"),
		r("defaults", "export", "com.apple.dock", "out.plist").because("writes a file"),
		r("defaults", "rename", "d", "a", "b").because("changes preferences"),
		r("defaults", "read", "a", "b", "c").because("only `defaults read"),
		r("defaults", "read", "-x").because("not allowed"),
	)
}

// TestLaunchctlReadOnly: only the reporting verbs, with plain targets and no options.
func TestLaunchctlReadOnly(t *testing.T) {
	check(t, true,
		r("launchctl", "list"),
		r("launchctl", "list", "com.apple.Finder"),
		r("launchctl", "print", "gui/501"),
		r("launchctl", "print", "system/com.apple.sshd"),
		r("launchctl", "print-disabled", "system"),
		r("launchctl", "blame", "gui/501/com.example.agent"),
		r("launchctl", "version"),
	)
	check(t, false,
		r("launchctl", "load", "x.plist").because("other verbs load"),
		r("launchctl", "bootstrap", "gui/501", "x.plist").because("other verbs load"),
		r("launchctl", "kickstart", "-k", "system/x").because("no options"),
		r("launchctl", "setenv", "PATH", "/tmp").because("other verbs load"),
		r("launchctl", "submit", "-l", "x", "--", "sh").because("no options"),
		r("launchctl", "print").because("other verbs load"),
	)
}
