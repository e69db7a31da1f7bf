package codex

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Hook is one hook as Codex lists it (app-server hooks/list, 0.169.0, live): its key (the file
// it is in and its place there), its command, the hash of what trust covers, and whether the
// user trusts that hash ("trusted", "untrusted", "modified"; managed hooks are trusted by
// policy).
type Hook struct {
	Key         string `json:"key"`
	EventName   string `json:"eventName"`
	Command     string `json:"command"`
	SourcePath  string `json:"sourcePath"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
	Enabled     bool   `json:"enabled"`
	IsManaged   bool   `json:"isManaged"`
}

// ListHooks asks Codex itself which hooks it would run for a session in cwd: codex app-server
// over stdio (initialize, initialized, hooks/list). Codex skips a hook whose trust status is not
// trusted without a word, so this, not the hooks file, is what says whether hookctl runs.
func ListHooks(codex string, env []string, cwd string) ([]Hook, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "app-server")
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("failed to run %s app-server: %w", codex, err)
	}
	defer func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	}()
	cwdJSON, _ := json.Marshal([]string{cwd})
	for _, msg := range []string{
		`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"hookctl","version":"1"}}}`,
		`{"method":"initialized"}`,
		`{"id":2,"method":"hooks/list","params":{"cwds":` + string(cwdJSON) + `}}`,
	} {
		if _, err := in.Write([]byte(msg + "\n")); err != nil {
			return nil, err
		}
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var resp struct {
			ID     *int `json:"id"`
			Result struct {
				Data []struct {
					Hooks  []Hook   `json:"hooks"`
					Errors []any    `json:"errors"`
					Warns  []string `json:"warnings"`
				} `json:"data"`
			} `json:"result"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &resp) != nil || resp.ID == nil || *resp.ID != 2 {
			continue
		}
		if resp.Error != nil {
			return nil, fmt.Errorf("codex hooks/list: %s", resp.Error.Message)
		}
		var hooks []Hook
		for _, d := range resp.Result.Data {
			hooks = append(hooks, d.Hooks...)
		}
		return hooks, nil
	}
	return nil, fmt.Errorf("codex app-server gave no hook list (%v)", sc.Err())
}

// TrustBlock is the config.toml table that trusts hook h as it is now: Codex runs it while its
// hash stays the same, and skips it again once the hooks file changes it.
func TrustBlock(h Hook) string {
	key, _ := json.Marshal(h.Key) // a TOML basic string is JSON's, for the characters a path holds
	hash, _ := json.Marshal(h.CurrentHash)
	return "\n# hookctl install --agent codex: trusts hookctl's hook as installed.\n[hooks.state." + string(key) + "]\ntrusted_hash = " + string(hash) + "\n"
}

// Ours finds hookctl's hooks among hooks: those whose command is command (hookctl's hook
// --agent codex), one per event install registers.
func Ours(hooks []Hook, command string) []Hook {
	var out []Hook
	for _, h := range hooks {
		if strings.TrimSpace(h.Command) == command {
			out = append(out, h)
		}
	}
	return out
}
