package server

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/policy"
)

// started logs and audits the configuration in force.
func started(log *slog.Logger, cfg *Config, pol *policy.Policy, aud *audit.Log) {
	var st Startup
	if cfg.Startup != nil {
		st = *cfg.Startup
	}
	log.Info("policy", "config", st.ConfigPath, "summary", pol.Summary())
	if len(st.IgnoredEnv) > 0 {
		log.Warn("environment variables that name no setting are ignored", "vars", strings.Join(st.IgnoredEnv, " "))
	}
	_ = aud.Write(audit.Event{Event: audit.EventPolicy, Client: "startup", Detail: map[string]string{
		"config": st.ConfigPath, "policy": pol.Summary(), "sources": strings.Join(st.Sources, " "),
		"max_input_bytes": fmt.Sprint(cfg.MaxInputBytes), "max_read_bytes": fmt.Sprint(cfg.MaxReadBytes)}})
}
