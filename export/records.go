package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"
)

// attrNames maps a log's field to its attribute: OpenTelemetry's semantic-convention name
// where one exists, hookctl.* for the rest. A field not named here is hookctl.<field>.
var attrNames = map[string]map[string]string{
	"decisions": {
		"id": "hookctl.decision.id", "session": "session.id", "agent": "hookctl.client", "agent_type": "hookctl.agent_type",
		"event": "hookctl.event", "tool": "hookctl.tool", "mode": "hookctl.mode", "verdict": "hookctl.verdict",
		"rule": "hookctl.rule", "reason": "hookctl.reason", "command": "hookctl.command", "rewrite": "hookctl.rewrite",
		"isolation": "hookctl.isolation", "cwd": "hookctl.cwd", "user_rule": "hookctl.user_rule",
		"version": "hookctl.version", "client_version": "hookctl.client.version", "policy": "hookctl.managed_policy.sha256", "kind": "hookctl.tool.kind",
		"how": "hookctl.mode.changed_by", "from": "hookctl.mode.from", "to": "hookctl.mode.to",
		"tool_use_id": "gen_ai.tool.call.id", "seq": "hookctl.record.seq", "prev_hash": "hookctl.record.prev_hash",
		"run": "hookctl.run.id", "state": "hookctl.run.state", "exit": "process.exit.code",
	},
	"audit": {
		"id": "hookctl.audit.id", "session": "session.id", "agent_id": "hookctl.agent_id", "agent_type": "hookctl.agent_type",
		"tool": "hookctl.tool", "kind": "hookctl.retrieval.kind", "url": "url.full", "final_url": "hookctl.final_url",
		"host": "server.address", "ip": "server.ip", "status": "http.response.status_code", "bytes": "hookctl.bytes",
		"outcome": "hookctl.outcome", "isolation": "hookctl.isolation", "rule": "hookctl.rule", "error": "error.message",
		"seq": "hookctl.record.seq", "prev_hash": "hookctl.record.prev_hash",
	},
}

// eventNames name each record's event (the log record's EventName): a decision log record by
// its "event", an audit record by its "kind".
var eventNames = map[string]string{
	"tool": "hookctl.decision", "toggle": "hookctl.mode_change", "hook": "hookctl.decision",
	"session_start": "hookctl.session.start", "session_end": "hookctl.session.end",
	"egress": "hookctl.egress", "publish": "hookctl.publish", "run_start": "hookctl.run.start", "run_end": "hookctl.run.end",
}

// severity: a refusal warns; what cannot be parsed or was lost is an error.
var severities = map[string]log.Severity{"deny": log.SeverityWarn, "ask": log.SeverityInfo2}

// toRecord turns one line of a log into an OTLP log record. Times not in the line are the
// export's; a line that is not a JSON object is sent as it is, flagged, rather than dropped.
func toRecord(it *item, now time.Time) log.Record {
	var r log.Record
	r.SetObservedTimestamp(now)
	r.SetTimestamp(it.time)
	// The line's hash, with the lane and the record's seq and prev_hash (its attributes), lets
	// the collector's side check each lane's chain as `hookctl log verify` does here.
	attrs := []attribute.KeyValue{attribute.String("hookctl.record.id", it.id), attribute.String("hookctl.log", it.log),
		attribute.String("hookctl.record.hash", it.hash), attribute.Int("hookctl.record.lane", it.lane)}
	var fields map[string]any
	dec := json.NewDecoder(bytes.NewReader(it.data))
	dec.UseNumber()
	if err := dec.Decode(&fields); err != nil {
		r.SetEventName("hookctl.unreadable")
		r.SetSeverity(log.SeverityError)
		r.SetSeverityText("ERROR")
		// As text OTLP can carry: a string that is not UTF-8 fails the whole batch, for ever.
		r.SetBody(attribute.StringValue(strings.ToValidUTF8(string(it.data), "\uFFFD")))
		r.AddAttributes(append(attrs, attribute.String("hookctl.error", "the log line is not a JSON object: "+err.Error()))...)
		return r
	}
	names := attrNames[it.log]
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "time" {
			continue
		}
		name, ok := names[k]
		if !ok {
			name = "hookctl." + k
		}
		attrs = append(attrs, attribute.KeyValue{Key: attribute.Key(name), Value: value(fields[k])})
	}
	str := func(k string) string { s, _ := fields[k].(string); return s }
	event := str("event")
	if it.log == "audit" {
		event = str("kind")
		if event == "" {
			event = "fetch"
		}
	}
	name, ok := eventNames[event]
	if !ok {
		name = "hookctl." + map[string]string{"audit": "retrieval"}[it.log]
		if it.log != "audit" {
			name = "hookctl." + event
		}
	}
	r.SetEventName(name)
	sev, text := log.SeverityInfo, "INFO"
	if s, ok := severities[str("verdict")]; ok {
		sev, text = s, strings.ToUpper(str("verdict"))
	}
	if str("outcome") == "refused" || str("outcome") == "failed" {
		sev, text = log.SeverityWarn, "WARN"
	}
	r.SetSeverity(sev)
	r.SetSeverityText(text)
	r.SetBody(attribute.StringValue(body(it.log, str)))
	r.AddAttributes(attrs...)
	return r
}

// body is a record's one-line summary, for a person reading the collector's output; the
// attributes carry everything.
func body(logName string, str func(string) string) string {
	if logName == "audit" {
		target := str("url")
		for _, k := range []string{"query", "github", "host"} {
			if target == "" {
				target = str(k)
			}
		}
		return strings.TrimSpace(fmt.Sprintf("%s %s %s", str("kind"), target, str("outcome")))
	}
	parts := []string{str("verdict"), str("event")}
	for _, k := range []string{"tool", "command", "reason"} {
		if s := str(k); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// value converts a JSON value: strings, numbers and booleans as themselves, lists of scalars as
// slices, anything deeper as its JSON text.
func value(v any) attribute.Value {
	switch v := v.(type) {
	case string:
		return attribute.StringValue(v)
	case bool:
		return attribute.BoolValue(v)
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return attribute.Int64Value(n)
		}
		f, _ := v.Float64()
		return attribute.Float64Value(f)
	case []any:
		vals := make([]attribute.Value, 0, len(v))
		for _, e := range v {
			switch e.(type) {
			case map[string]any, []any:
				b, _ := json.Marshal(v)
				return attribute.StringValue(string(b))
			}
			vals = append(vals, value(e))
		}
		return attribute.SliceValue(vals...)
	case nil:
		return attribute.StringValue("")
	}
	b, _ := json.Marshal(v)
	return attribute.StringValue(string(b))
}

// dropRecord is the loud record of a loss.
func dropRecord(d drop, now time.Time) log.Record {
	var r log.Record
	r.SetTimestamp(d.Time)
	r.SetObservedTimestamp(now)
	r.SetEventName("hookctl.export.dropped")
	r.SetSeverity(log.SeverityError)
	r.SetSeverityText("ERROR")
	n := fmt.Sprint(d.Records)
	if d.AtLeast {
		n = fmt.Sprintf("an unknown number (at least %d) of", d.Records)
	}
	r.SetBody(attribute.StringValue(fmt.Sprintf("%s records of hookctl's %s log (lane %d) were rotated away on this machine before they could be exported", n, d.Log, d.Lane)))
	r.AddAttributes(attribute.String("hookctl.record.id", d.id()), attribute.String("hookctl.log", d.Log), attribute.Int("hookctl.export.lane", d.Lane),
		attribute.Int("hookctl.export.dropped.records", d.Records), attribute.Bool("hookctl.export.dropped.at_least", d.AtLeast))
	return r
}
