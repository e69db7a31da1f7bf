#!/bin/sh
# hookctl's uninstaller for when hookctl itself is gone.
#
# Claude Code refuses every prompt and tool call while its settings register hookctl's hooks
# and the hookctl binary is missing (the hooks fail closed), and `hookctl uninstall` cannot run
# then. This script removes hookctl's hooks and status line from Claude Code's settings without
# the binary, making the same edit `hookctl uninstall` makes, byte for byte. hookctl install
# writes it into hookctl's home; run it as
#
#   sh ~/.config/hookctl/uninstall.sh [--dry-run] [SETTINGS-FILE...]
#
# With no file it edits ~/.claude/settings.json, and .claude/settings.json and
# .claude/settings.local.json in the current directory. Each file it changes is copied to
# backups/ in hookctl's home first. A file it cannot read, or one Claude Code ignores (comments,
# trailing commas: its hooks never run), is left alone and named.
#
# Needs only POSIX sh and awk. Generated from agents/claude/uninstall.sh; tested against
# hookctl's own uninstall (agents/claude/uninstallsh_test.go).

set -u
LC_ALL=C
export LC_ALL

case $0 in
*/*) home=${0%/*} ;;
*) home=. ;;
esac
home=$(cd -P "$home" 2>/dev/null && pwd -P) || { echo "uninstall.sh: cannot find hookctl's home" >&2; exit 1; }

dry=
case ${1-} in
--dry-run) dry=1; shift ;;
-h|--help) sed -n '2,17p' "$0"; exit 0 ;;
esac

# The binary hookctl's home linked, now missing: its entries name it.
binary=
[ -L "$home/bin/hookctl" ] && binary=$(readlink "$home/bin/hookctl" 2>/dev/null)

# physical prints the path of file $1 with every symbolic link resolved, as hookctl keys its
# saved status lines.
physical() {
	f=$1 n=0
	case $f in /*) ;; *) f=$(pwd -P)/$f ;; esac
	while [ -L "$f" ] && [ $n -lt 40 ]; do
		l=$(readlink "$f") || break
		case $l in /*) f=$l ;; *) f=${f%/*}/$l ;; esac
		n=$((n + 1))
	done
	d=$(cd -P "${f%/*}" 2>/dev/null && pwd -P) || return 1
	printf '%s/%s\n' "${d%/}" "${f##*/}"
}

# remove_command removes the /readonly command file $1 if it is hookctl's: without hookctl,
# typing /readonly would send its text to the model. It goes if it is exactly the one this
# release wrote, or the one an earlier release wrote (whose argument hint was "[on|off]").
remove_command() {
	cmd=$1
	if [ -f "$cmd" ] && { cmp -s "$cmd" - <<'END_OF_READONLY_COMMAND'
---
description: Switch this session between read-only, edit and review mode (hookctl)
argument-hint: "[on|off|review|status]"
disable-model-invocation: true
---
hookctl handles /readonly before the model sees it; if you are reading this, the hookctl hook is not running.
Arguments: $ARGUMENTS
END_OF_READONLY_COMMAND
	} || { cmp -s "$cmd" - <<'END_OF_EARLIER_READONLY_COMMAND'
---
description: Switch this session between read-only and edit mode (hookctl)
argument-hint: "[on|off]"
disable-model-invocation: true
---
hookctl handles /readonly before the model sees it; if you are reading this, the hookctl hook is not running.
Arguments: $ARGUMENTS
END_OF_EARLIER_READONLY_COMMAND
	}; then
		rm -f "$cmd" && echo "removed the /readonly command $cmd"
	fi
}

if [ $# -eq 0 ]; then
	set -- "${HOME:-/}/.claude/settings.json" "$(pwd -P)/.claude/settings.json" "$(pwd -P)/.claude/settings.local.json"
	defaults=1
else
	defaults=
fi

# UNINSTALL_AWK is the editor: it reads one settings file and prints it without hookctl's
# entries and status line. Exit 0: printed the new file; 1: nothing of hookctl's there; 2: the
# file cannot be read or edited safely (said on standard error); 3: Claude Code ignores the
# file. It is a port of agents/claude's reader and removal, for strict JSON only (a file with
# comments is one Claude Code ignores), and it checks its result as hookctl does.
UNINSTALL_AWK='
BEGIN { RS = "\001"; MAXDEPTH = 64; N = 0 }
{ text = text (NR > 1 ? RS : "") $0 }
END {
	# The saved status line, if install replaced one in this file.
	prev = ""
	if (saved != "" && (getline stext < saved) > 0) {
		r = parse(stext)
		if (r && K[r] == "o") {
			fi = member(r, "files")
			if (fi && K[fi] == "o") {
				v = member(fi, key)
				if (v && K[v] == "s") prev = STR[v]
			}
		}
		bad = ""
	}
	if (prev != "") {
		r = parse(prev)
		# One bare JSON value, not hookctl status line: else there is nothing to restore.
		if (!r || S[r] != 1 || E[r] != length(prev) + 1 || ourstatus(r)) prev = ""
		bad = ""
	}

	if (blank(text)) exit 1
	root = view(text)
	if (jsonc) exit 3
	if (!root) fail()
	ours = SL && ourstatus(CV[root, SL])
	before1 = sans(root, ours)

	out = text
	if (ours) {
		NE = 0
		if (prev == "") removekids(root, SL, "") 
		else edit(S[CV[root, SL]], E[CV[root, SL]], prev)
		out = splice(out)
		root = view(out)
		if (!root) fail()
	}
	NE = 0
	removal(root)
	if (NE == 0 && !ours) exit 1
	out = splice(out)

	# Check the result as hookctl does: it reads, it holds nothing of hookctl, the status line
	# is the one saved, and every other value is as it was.
	root = view(out)
	if (!root) { bad = "the edited file does not parse: " bad; fail() }
	if (HOOKCTLS) { bad = "hookctl entries remain after the edit"; fail() }
	if (ours && SL && ourstatus(CV[root, SL])) { bad = "hookctl status line remains after the edit"; fail() }
	if (ours && prev != "" && (!SL || substr(out, S[CV[root, SL]], E[CV[root, SL]] - S[CV[root, SL]]) != prev)) { bad = "the status line was not restored"; fail() }
	if (sans(root, ours) != before1) { bad = "the edit would change settings that are not hookctl"; fail() }
	printf "%s", out
	exit 0
}

function fail() {
	printf "%s\n", "hookctl uninstall.sh: " (bad != "" ? bad : "failed to read the file") > "/dev/stderr"
	exit 2
}

function blank(t,   i, c) {
	i = 1
	if (substr(t, 1, 3) == "\357\273\277") i = 4
	for (; i <= length(t); i++) {
		c = substr(t, i, 1)
		if (c != " " && c != "\t" && c != "\r" && c != "\n") return 0
	}
	return 1
}

# ---- Reading ----
#
# Nodes: K kind (o object, a array, s string, n number, l literal), S start and E end (src
# positions, the value is substr(src, S, E - S)), STR a string decoded. Children of n, i from 1
# to NK[n]: CV value, CK key, CKS where the child starts (the key, or the value), CW where the
# whitespace before it starts, CC its comma (0: none). CLW: where the whitespace before the
# closing bracket starts. The reader latches the first error in bad and returns 0.

function parse(t,   r) {
	src = t; n = length(t); p = 1; bad = ""; jsonc = 0
	if (substr(t, 1, 3) == "\357\273\277") p = 4
	sp()
	r = value(0)
	if (!r) return 0
	sp()
	if (p <= n) {
		if (substr(src, p, 1) == "/") { jsonc = 1; return 0 }
		return perr("unexpected text after the end")
	}
	return r
}

function perr(msg) {
	if (bad == "") bad = msg " at byte " p
	return 0
}

function sp(   c) {
	WS = p
	while (p <= n) {
		c = substr(src, p, 1)
		if (c == " " || c == "\t" || c == "\n" || c == "\r") p++
		else return
	}
}

function value(depth,   c, id, w) {
	if (p > n) return perr("unexpected end of file")
	c = substr(src, p, 1)
	if (c == "{" || c == "[") return container(c, depth)
	if (c == "\"") {
		id = ++N; K[id] = "s"; S[id] = p
		if (!str()) return 0
		STR[id] = sval; E[id] = p
		return id
	}
	if (c == "-" || c ~ /[0-9]/) return number()
	if (c == "/") { jsonc = 1; return 0 }
	for (w = 1; w <= 3; w++) {
		c = (w == 1 ? "true" : w == 2 ? "false" : "null")
		if (substr(src, p, length(c)) == c) {
			id = ++N; K[id] = "l"; S[id] = p; p += length(c); E[id] = p
			return id
		}
	}
	return perr("unexpected character")
}

function container(open, depth,   id, closer, k, c, v) {
	if (depth >= MAXDEPTH) return perr("nested too deep")
	id = ++N; S[id] = p; NK[id] = 0
	if (open == "{") { K[id] = "o"; closer = "}" } else { K[id] = "a"; closer = "]" }
	p++
	sp()
	while (1) {
		if (p > n) return perr("unexpected end of file")
		c = substr(src, p, 1)
		if (c == "/") { jsonc = 1; return 0 }
		if (c == closer) break
		k = ++NK[id]; CW[id, k] = WS; CC[id, k] = 0
		if (K[id] == "o") {
			if (c != "\"") return perr("expected a key")
			CKS[id, k] = p
			if (!str()) return 0
			if ((id, sval) in SEEN) return perr("duplicate key")
			SEEN[id, sval] = 1
			CK[id, k] = sval
			sp()
			c = substr(src, p, 1)
			if (c == "/") { jsonc = 1; return 0 }
			if (c != ":") return perr("expected a colon")
			p++
			sp()
		}
		v = value(depth + 1)
		if (!v) return 0
		CV[id, k] = v
		if (K[id] == "a") CKS[id, k] = S[v]
		sp()
		if (p > n) return perr("unexpected end of file")
		c = substr(src, p, 1)
		if (c == "/") { jsonc = 1; return 0 }
		if (c != ",") {
			if (c != closer) return perr("expected a comma")
			break
		}
		CC[id, k] = p
		p++
		sp()
		c = substr(src, p, 1)
		if (c == "/" || c == closer) { jsonc = 1; return 0 } # a comment, or a trailing comma
	}
	CLW[id] = WS
	p++
	E[id] = p
	return id
}

# str reads the string at p into sval, decoded.
function str(   out, c, e, h, cp, lo) {
	p++
	out = ""
	while (1) {
		if (p > n) return perr("unterminated string")
		c = substr(src, p, 1)
		if (c == "\"") { p++; sval = out; return 1 }
		if (c < " ") return perr("control character in a string")
		if (c != "\\") { out = out c; p++; continue }
		e = substr(src, p + 1, 1)
		if (e == "\"" || e == "\\" || e == "/") out = out e
		else if (e == "b") out = out "\b"
		else if (e == "f") out = out "\f"
		else if (e == "n") out = out "\n"
		else if (e == "r") out = out "\r"
		else if (e == "t") out = out "\t"
		else if (e == "u") {
			h = substr(src, p + 2, 4)
			if (h !~ /^[0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f]$/) return perr("invalid \\u escape")
			cp = hex(h)
			p += 6
			if (cp >= 55296 && cp < 57344) {
				# A surrogate pair is one character; a lone half is U+FFFD, as in hookctl.
				lo = substr(src, p + 2, 4)
				if (cp < 56320 && substr(src, p, 2) == "\\u" && lo ~ /^[0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f]$/ && hex(lo) >= 56320 && hex(lo) < 57344) {
					cp = 65536 + (cp - 55296) * 1024 + (hex(lo) - 56320)
					p += 6
				} else cp = 65533
			}
			out = out utf8(cp)
			continue
		} else return perr("invalid escape in a string")
		p += 2
	}
}

function hex(h,   i, v) {
	v = 0
	for (i = 1; i <= 4; i++) v = v * 16 + index("0123456789abcdef", tolower(substr(h, i, 1))) - 1
	return v
}

function utf8(cp) {
	if (cp < 128) return sprintf("%c", cp)
	if (cp < 2048) return sprintf("%c%c", 192 + int(cp / 64), 128 + cp % 64)
	if (cp < 65536) return sprintf("%c%c%c", 224 + int(cp / 4096), 128 + int(cp / 64) % 64, 128 + cp % 64)
	return sprintf("%c%c%c%c", 240 + int(cp / 262144), 128 + int(cp / 4096) % 64, 128 + int(cp / 64) % 64, 128 + cp % 64)
}

function number(   id, d) {
	id = ++N; K[id] = "n"; S[id] = p
	if (substr(src, p, 1) == "-") p++
	if (substr(src, p, 1) == "0") p++
	else if (!digits()) return perr("invalid number")
	if (substr(src, p, 1) == ".") { p++; if (!digits()) return perr("invalid number") }
	d = substr(src, p, 1)
	if (d == "e" || d == "E") {
		p++
		d = substr(src, p, 1)
		if (d == "+" || d == "-") p++
		if (!digits()) return perr("invalid number")
	}
	E[id] = p
	return id
}

function digits(   k) {
	k = 0
	while (p <= n && substr(src, p, 1) ~ /[0-9]/) { p++; k++ }
	return k
}

function member(o, k,   i) {
	for (i = 1; i <= NK[o]; i++) if (CK[o, i] == k) return CV[o, i]
	return 0
}

# view parses t as a settings file and marks hookctl entries, as readSettingsView does:
# HK the "hooks" member index in the root (0: none), SL the statusLine one, OURS[g, i] the
# entries of group g that are hookctl ones, NOURS[g] how many, HOOKCTLS in all.
function view(t,   r, h, e, ev, j, g, entries, i, ent) {
	r = parse(t)
	if (!r) return 0
	if (K[r] != "o") return perr("the settings are not a JSON object")
	HK = 0; SL = 0; HOOKCTLS = 0
	for (i = 1; i <= NK[r]; i++) {
		if (CK[r, i] == "hooks") HK = i
		if (CK[r, i] == "statusLine") SL = i
	}
	if (!HK) return r
	h = CV[r, HK]
	if (K[h] != "o") return perr("\"hooks\" is not an object")
	for (e = 1; e <= NK[h]; e++) {
		ev = CV[h, e]
		if (K[ev] != "a") return perr("a hooks event is not an array")
		for (j = 1; j <= NK[ev]; j++) {
			g = CV[ev, j]
			if (K[g] != "o") return perr("a hook group is not an object")
			entries = member(g, "hooks")
			if (!entries || K[entries] != "a") return perr("a hook group has no \"hooks\" array")
			GE[g] = entries
			NOURS[g] = 0
			for (i = 1; i <= NK[entries]; i++) {
				ent = CV[entries, i]
				if (K[ent] != "o") return perr("a hook is not an object")
				OURS[g, i] = ourhook(ent)
				if (OURS[g, i]) { NOURS[g]++; HOOKCTLS++ }
			}
		}
	}
	return r
}

# ourhook mirrors isOurs: hookctl or the binary with "hook" first, or sh -c SCRIPT hookctl hook.
function ourhook(h,   c, a) {
	c = member(h, "command"); a = member(h, "args")
	if (!c || K[c] != "s" || !a || K[a] != "a" || NK[a] == 0) return 0
	if (base(STR[c]) == "sh" && arg(a, 1) == "-c" && arg(a, 3) == "hookctl" && arg(a, 4) == "hook") return 1
	return (STR[c] == binary && binary != "" || base(STR[c]) == "hookctl") && arg(a, 1) == "hook"
}

function arg(a, i) {
	if (i > NK[a] || K[CV[a, i]] != "s") return "\001"
	return STR[CV[a, i]]
}

# base is path.Base.
function base(s) {
	while (length(s) > 1 && substr(s, length(s)) == "/") s = substr(s, 1, length(s) - 1)
	if (s == "") return "."
	if (s == "/") return s
	while (index(s, "/")) s = substr(s, index(s, "/") + 1)
	return s
}

# ourstatus mirrors isOurStatusValue: the command install writes for the binary, or a first
# shell word naming hookctl followed by exactly " statusline".
function ourstatus(v,   c, cmd) {
	if (K[v] != "o") return 0
	c = member(v, "command")
	if (!c || K[c] != "s") return 0
	cmd = STR[c]
	if (binary != "" && cmd == quote(binary) " statusline") return 1
	if (!firstword(cmd)) return 0
	return base(WORD) == "hookctl" && REST == " statusline"
}

function quote(s) {
	if (s != "" && s !~ /[^A-Za-z0-9\/._-]/) return s
	gsub(/\047/, "\047\\\047\047", s)
	return "\047" s "\047"
}

# firstword reads the first word of a shell command into WORD, the text after it into REST:
# plain characters, single and double quotes, backslashes. Anything whose value the text alone
# does not fix (an expansion, an assignment, a redirection) is not a word here.
function firstword(cmd,   i, c, w, q, m) {
	w = ""; i = 1; m = length(cmd)
	if (cmd ~ /^[A-Za-z_][A-Za-z0-9_]*=/) return 0
	c = substr(cmd, 1, 1)
	if (c == "" || c == "#" || c == "~" || c == " " || c == "\t") return 0
	while (i <= m) {
		c = substr(cmd, i, 1)
		if (c == " " || c == "\t" || c == "\n" || c == ";" || c == "&" || c == "|") break
		if (c == "\047") {
			q = index(substr(cmd, i + 1), "\047")
			if (!q) return 0
			w = w substr(cmd, i + 1, q - 1); i += q + 1
		} else if (c == "\"") {
			i++
			while (1) {
				if (i > m) return 0
				c = substr(cmd, i, 1)
				if (c == "\"") { i++; break }
				if (c == "$" || c == "`") return 0
				if (c == "\\" && index("$`\"\\\n", substr(cmd, i + 1, 1))) { w = w substr(cmd, i + 1, 1); i += 2; continue }
				w = w c; i++
			}
		} else if (c == "\\") {
			if (i == m) return 0
			w = w substr(cmd, i + 1, 1); i += 2
		} else if (index("<>()$`*?[{}!", c)) return 0
		else { w = w c; i++ }
	}
	WORD = w; REST = substr(cmd, i)
	return 1
}

# ---- Editing ----

function edit(from, to, t) { NE++; ES[NE] = from; EE[NE] = to; ET[NE] = t }

# splice applies the edits to t, in order of their start, which must not overlap.
function splice(t,   i, j, a, b, c, out, at) {
	for (i = 2; i <= NE; i++) {
		a = ES[i]; b = EE[i]; c = ET[i]
		for (j = i - 1; j >= 1 && ES[j] > a; j--) { ES[j + 1] = ES[j]; EE[j + 1] = EE[j]; ET[j + 1] = ET[j] }
		ES[j + 1] = a; EE[j + 1] = b; ET[j + 1] = c
	}
	out = ""; at = 1
	for (i = 1; i <= NE; i++) {
		if (ES[i] < at || EE[i] < ES[i]) { bad = "overlapping edits"; fail() }
		out = out substr(t, at, ES[i] - at) ET[i]
		at = EE[i]
	}
	return out substr(t, at)
}

# removekids removes the children of c listed (by index, space-separated) in drop, as
# removeChildren does: each with the whitespace before it and its comma; the comma of the last
# child kept when the last goes; the line break before the closing bracket when all go.
function removekids(c, one, drop,   D, i, k, lastkept, end, start, lc, lb, tail) {
	split("", D)
	if (one != "") D[one] = 1
	split(drop, lc, " ")
	for (i in lc) D[lc[i]] = 1
	lastkept = 0
	for (i = 1; i <= NK[c]; i++) if (!(i in D)) lastkept = i
	for (i = 1; i <= NK[c]; i++) {
		if (!(i in D)) continue
		k = CV[c, i]
		end = E[k]
		if (CC[c, i]) end = CC[c, i] + 1
		else if (lastkept) edit(CC[c, lastkept], CC[c, lastkept] + 1, "")
		if (!lastkept && i == NK[c]) {
			for (lb = 1; lb <= 2; lb++) {
				tail = (lb == 1 ? "\r\n" : "\n") indent(S[c])
				if (substr(src, end, length(tail)) == tail && end + length(tail) <= E[c]) { end += length(tail); break }
			}
		}
		start = CW[c, i]
		if (i == 1 && CC[c, i] && NK[c] > 1 && !(2 in D) && !linebreak(CW[c, i], CKS[c, i])) {
			start = CKS[c, i]
			while (end < E[c] && (substr(src, end, 1) == " " || substr(src, end, 1) == "\t")) end++
		}
		edit(start, end, "")
	}
}

function linebreak(from, to,   i, c) {
	for (i = from; i < to; i++) { c = substr(src, i, 1); if (c == "\n" || c == "\r") return 1 }
	return 0
}

# indent is the spaces and tabs that begin the line holding position at.
function indent(at,   s, e, c) {
	for (s = at; s > 1; s--) { c = substr(src, s - 1, 1); if (c == "\n" || c == "\r") break }
	for (e = s; e < at; e++) { c = substr(src, e, 1); if (c != " " && c != "\t") break }
	return substr(src, s, e - s)
}

# removal takes hookctl entries out, as removal(all, nil, dropHooks) does: groups left empty
# go, events left empty go, and "hooks" goes when every event does.
function removal(r,   h, e, ev, j, g, emptied, dropg, drope, dropped, i, inner, innerN, save) {
	if (!HK) return
	h = CV[r, HK]
	drope = ""; dropped = 0
	for (e = 1; e <= NK[h]; e++) {
		ev = CV[h, e]
		if (!evours(ev)) continue
		emptied = 1; dropg = ""
		save = NE
		for (j = 1; j <= NK[ev]; j++) {
			g = CV[ev, j]
			if (NOURS[g] == 0) emptied = 0
			else if (NOURS[g] == NK[GE[g]]) dropg = dropg " " j
			else {
				emptied = 0
				inner = ""
				for (i = 1; i <= NK[GE[g]]; i++) if (OURS[g, i]) inner = inner " " i
				removekids(GE[g], "", inner)
			}
		}
		if (emptied) { NE = save; drope = drope " " e; dropped++; continue }
		if (dropg != "") removekids(ev, "", dropg)
	}
	if (dropped == 0) return
	if (dropped == NK[h]) { NE = 0; removekids(r, HK, ""); return }
	removekids(h, "", drope)
}

function evours(ev,   j, t) {
	t = 0
	for (j = 1; j <= NK[ev]; j++) t += NOURS[CV[ev, j]]
	return t
}

# sans renders the root values without hookctl entries (and without the status line when
# skip is set), as sansHookctl does, so that the edit can be checked to touch nothing else.
function sans(r,   skip, i, h, e, ev, j, g, k, ents, groups, hooks, out) {
	out = "{"
	for (i = 1; i <= NK[r]; i++) {
		if (skip && i == SL) continue
		if (i == HK) {
			h = CV[r, i]; hooks = ""
			for (e = 1; e <= NK[h]; e++) {
				ev = CV[h, e]; groups = ""
				for (j = 1; j <= NK[ev]; j++) {
					g = CV[ev, j]; ents = ""
					for (k = 1; k <= NK[GE[g]]; k++) if (!OURS[g, k]) ents = ents canon(CV[GE[g], k]) ","
					if (ents == "") continue
					groups = groups "{"
					for (k = 1; k <= NK[g]; k++) {
						groups = groups jkey(CK[g, k]) ":"
						groups = groups (CV[g, k] == GE[g] ? "[" ents "]" : canon(CV[g, k])) ","
					}
					groups = groups "},"
				}
				if (groups != "") hooks = hooks jkey(CK[h, e]) ":[" groups "],"
			}
			if (hooks != "") out = out "\"hooks\":{" hooks "},"
			continue
		}
		out = out jkey(CK[r, i]) ":" canon(CV[r, i]) ","
	}
	return out "}"
}

function jkey(k) {
	gsub(/\\/, "\\\\", k); gsub(/"/, "\\\"", k)
	return "\"" k "\""
}

function canon(v,   i, out) {
	if (K[v] == "o") {
		out = "{"
		for (i = 1; i <= NK[v]; i++) out = out jkey(CK[v, i]) ":" canon(CV[v, i]) ","
		return out "}"
	}
	if (K[v] == "a") {
		out = "["
		for (i = 1; i <= NK[v]; i++) out = out canon(CV[v, i]) ","
		return out "]"
	}
	return substr(src, S[v], E[v] - S[v])
}
'

status=0
changed=0
for f in "$@"; do
	if [ ! -e "$f" ]; then
		[ -z "$defaults" ] && { echo "$f: no such file" >&2; status=1; }
		continue
	fi
	real=$(physical "$f") || { echo "$f: cannot resolve its directory" >&2; status=1; continue; }
	if [ ! -f "$real" ]; then
		echo "$f: not a regular file; left alone" >&2
		status=1
		continue
	fi
	tmp=$real.hookctl-uninstall.$$
	rm -f "$tmp"
	if ! cp -p "$real" "$tmp" 2>/dev/null; then
		echo "$f: cannot write beside it (${real%/*}); run this as the file's owner" >&2
		status=1
		continue
	fi
	awk -v binary="$binary" -v key="$real" -v saved="$home/statusline.json" "$UNINSTALL_AWK" "$real" >"$tmp"
	rc=$?
	case $rc in
	0)
		if [ -n "$dry" ]; then
			echo "would remove hookctl from $f"
			rm -f "$tmp"
			continue
		fi
		mkdir -p "$home/backups" && chmod 700 "$home/backups"
		flat=$(printf '%s' "$real" | sed 's|^/||; s|/|-|g')
		base=$home/backups/$(date +%Y%m%d-%H%M%S)-uninstall.sh-$flat
		backup=$base n=1
		while [ -e "$backup" ]; do n=$((n + 1)); backup=$base-$n; done
		if ! cp "$real" "$backup" || ! chmod 600 "$backup"; then
			echo "$f: cannot back it up to $backup; left alone" >&2
			rm -f "$tmp"
			status=1
			continue
		fi
		if mv -f "$tmp" "$real"; then
			echo "removed hookctl from $f (backup: $backup)"
			changed=$((changed + 1))
			# The managed settings' /readonly command lies beside them (hookctl install --scope
			# managed), for every user of the machine.
			case $real in
			/etc/claude-code/managed-settings.json | "/Library/Application Support/ClaudeCode/managed-settings.json")
				remove_command "${real%/*}/.claude/commands/readonly.md"
				;;
			esac
			# A settings file hookctl install created, with nothing left in it, goes, as
			# hookctl uninstall removes it (statusline.json's "created" list names it).
			if [ "$(tr -d ' \t\r\n' <"$real")" = "{}" ] && [ -f "$home/statusline.json" ] &&
				sed -n '/"created": \[/,/\]/p' "$home/statusline.json" | grep -qF "\"$real\""; then
				rm -f "$real" && echo "removed $f, which hookctl install had created"
			fi
		else
			echo "$f: cannot replace it; left alone" >&2
			rm -f "$tmp"
			status=1
		fi
		;;
	1)
		rm -f "$tmp"
		[ -z "$defaults" ] && echo "$f: hookctl is not registered there"
		;;
	3)
		rm -f "$tmp"
		echo "$f: Claude Code ignores this file (it holds comments or trailing commas), so its hooks never run; left alone"
		;;
	*)
		rm -f "$tmp"
		echo "$f: left alone" >&2
		status=1
		;;
	esac
done

# The managed settings need their owner, root.
for m in /etc/claude-code/managed-settings.json "/Library/Application Support/ClaudeCode/managed-settings.json"; do
	if [ -n "$defaults" ] && [ -f "$m" ] && grep -q hookctl "$m" 2>/dev/null; then
		echo "note: $m (the managed settings) also names hookctl; its administrator removes that, as root: sh $0 '$m'"
	fi
done

if [ -n "$defaults" ] && [ -z "$dry" ] && [ $status -eq 0 ]; then
	if [ $changed -eq 0 ]; then
		echo "hookctl is not registered in ${HOME:-~}/.claude/settings.json or in $(pwd -P)/.claude; run this in the project whose settings register it"
	fi
	remove_command "${HOME:-/}/.claude/commands/readonly.md"
fi
exit $status
