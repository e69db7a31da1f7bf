// Package agentkit is the one kit every client's adapter is built from, Claude Code's included:
// a client's payloads described as data (Protocol: the keys of the fields every client sends,
// its events, its tool table), the one prologue that reads a payload by that description
// (Protocol.Decode: the size cap, strict JSON, the event, the call's fields, the tool's input,
// each failure an error that refuses the call), the pieces the answers are rendered from
// (render.go: a flat answer as data, Flat, and the Claude-shaped pieces), and the walk of a
// project's hook files (settings.go), so that a rule about payloads or answers is written once.
//
// Each adapter keeps its client's own facts: its tool names, fields and events (as data), what
// only it sends (Claude Code's readonly command, Cursor's workspace roots), where its hook files
// are, and the shape of its answer, which differs from client to client in ways that decide
// whether a refusal holds (see each adapter's package comment). It runs in the hook process, and
// links no network code.
package agentkit

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/hookjson"
	"github.com/hookctl/hookctl/session"
)

// Tool is one of a client's tools: what it does, and where its input holds what the policy
// judges. Every field named must be a string in the input when present.
type Tool struct {
	Name string
	Kind hook.Kind
	// Command is the field holding the command a tool runs (required); Dir the field holding
	// the directory it runs in, when the tool takes one ("" or absent: the session's).
	Command, Dir string
	// Description is the field where the model says what a command is for.
	Description string
	// NoRewrite: the client does not take the command back rewritten (Qwen Code's shell, Claude
	// Code's Monitor), so an admitted command runs as written, outside hookctl's sandbox.
	NoRewrite bool
	// Write is the field holding the file a writing tool writes (required); Patch the field
	// holding a patch whose file headers name the files it writes (Codex's apply_patch).
	Write, Patch string
	// Read is the field holding the file or directory a reading tool reads the content of, for
	// the sensitive-file rule; ReadRequired says the tool cannot run without it.
	Read         string
	ReadRequired bool
	// URL and Query are a web tool's fetch address and search query; Need what the model says
	// it wants from it.
	URL, Query, Need string
	// Prompt is the field holding a prompt the tool schedules for later (Claude Code's
	// CronCreate); Skill the field naming the skill a tool loads.
	Prompt, Skill string
}

// Tools is a client's tool table.
type Tools []Tool

// Find returns the tool named name.
func (ts Tools) Find(name string) (Tool, bool) {
	for _, t := range ts { // a slice, not a map: a map literal is built on every hook start
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// Shell is the client's shell tool that takes a rewritten command, "" if it has none: what a
// command judged outside any payload (`hookctl check`) is taken to be run by.
func (ts Tools) Shell() string {
	for _, t := range ts {
		if t.Kind == hook.KindShell && !t.NoRewrite {
			return t.Name
		}
	}
	return ""
}

// Parse reads a payload: at most hook.MaxPayload bytes, valid JSON, an object, and no key twice
// anywhere (gjson would decide on the first value while the client acts on the last).
func Parse(payload []byte) (gjson.Result, error) {
	if len(payload) > hook.MaxPayload {
		return gjson.Result{}, fmt.Errorf("hookctl refuses payloads over %d bytes", hook.MaxPayload)
	}
	if !gjson.ValidBytes(payload) {
		return gjson.Result{}, fmt.Errorf("the payload is not valid JSON")
	}
	root := gjson.ParseBytes(payload)
	if !root.IsObject() {
		return gjson.Result{}, fmt.Errorf("the payload is not a JSON object")
	}
	if dup := session.DuplicateKey(root); dup != "" {
		return gjson.Result{}, fmt.Errorf("the key %q appears twice", clip.Short(dup))
	}
	return root, nil
}

// Str is hookjson.Str: a string field, required ones present and non-empty.
func Str(obj gjson.Result, key string, required bool) (string, error) {
	return hookjson.Str(obj, key, required)
}

// FillCall reads the input of a call to tool t into c: c.Input, and the command, paths, web
// request, prompt or skill the policy judges. key is the payload's name for the input, for the
// errors; c.Tool and c.Cwd must be set. A tool whose input lacks what its entry names is an
// error, which refuses the call.
func FillCall(c *hook.ToolCall, t Tool, key string, in gjson.Result) error {
	if !in.IsObject() {
		return fmt.Errorf("%s is missing or not an object", key)
	}
	c.Input = json.RawMessage(in.Raw)
	c.Kind, c.NoRewrite = t.Kind, t.NoRewrite
	field := func(name string, required bool) (string, error) {
		v, err := Str(in, name, required)
		if err != nil {
			return "", fmt.Errorf("%s: %w", key, err)
		}
		return v, nil
	}
	var err error
	switch {
	case t.Command != "":
		if c.Command, err = field(t.Command, true); err != nil {
			return err
		}
		if t.Description != "" {
			if c.Description, err = field(t.Description, false); err != nil {
				return err
			}
		}
		if t.Dir != "" {
			dir, err := field(t.Dir, false)
			if err != nil {
				return err
			}
			if dir != "" {
				// The command runs there: relative paths, the sensitive-file rule and edit mode's
				// project are judged from it.
				if !filepath.IsAbs(dir) {
					dir = filepath.Join(c.Cwd, dir)
				}
				c.Cwd = filepath.Clean(dir)
			}
		}
	case t.Write != "":
		p, err := field(t.Write, true)
		if err != nil {
			return err
		}
		c.Paths = []string{p}
	case t.Patch != "":
		patch, err := field(t.Patch, true)
		if err != nil {
			return err
		}
		if c.Paths, err = PatchPaths(patch); err != nil {
			return err
		}
	case t.Read != "":
		p, err := field(t.Read, t.ReadRequired)
		if err != nil {
			return err
		}
		if p != "" {
			c.ReadPaths = []string{p}
		}
	case t.URL != "" || t.Query != "":
		w := &hook.WebRequest{}
		if t.URL != "" {
			if w.URL, err = field(t.URL, true); err != nil {
				return err
			}
		} else if w.Query, err = field(t.Query, true); err != nil {
			return err
		}
		if t.Need != "" {
			if w.Need, err = field(t.Need, false); err != nil {
				return err
			}
		}
		if w.Need == "" {
			w.Need = w.Query
		}
		c.Web = w
	case t.Prompt != "":
		c.Prompt, err = field(t.Prompt, false)
	case t.Skill != "":
		c.Skill, err = field(t.Skill, false)
	}
	return err
}

// patchHeaders are the lines of a Codex patch that name a file it writes (codex-rs
// apply-patch's grammar: Add, Delete and Update File, and an update's Move to).
var patchHeaders = []string{"*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: "}

// PatchPaths lists the files a patch writes. A patch that names none, or whose header names an
// empty path, is an error: the paths are what edit mode's protection judges.
//
// Why: Codex applies the patch itself, outside any sandbox, so these paths are all edit mode's
// guard sees. Codex's parser trims a header line of Unicode white space before it reads the
// marker (a no-break space included) and takes every line that then starts with one as a
// header; so every line that does so here, in any position, counts, which names at least the
// files Codex writes and sometimes more (a context line that looks like a header).
// Test: TestPatchPaths.
func PatchPaths(patch string) ([]string, error) {
	var out []string
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimSpace(line) // Unicode white space, as Rust's str::trim
		for _, h := range patchHeaders {
			if rest, ok := strings.CutPrefix(line, h); ok {
				p := strings.TrimSpace(rest)
				if p == "" {
					return nil, fmt.Errorf("the patch has a %q line without a path", strings.TrimSpace(h))
				}
				out = append(out, p)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the patch names no file")
	}
	return out, nil
}
