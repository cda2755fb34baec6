package main

import core "github.com/agentty/agentty/internal/server"

// guardCommand is the hidden subcommand the watchdog process runs: it kills
// everything agentty started once agentty is gone, however it died.
const guardCommand = "__guard"

func guard() int { return core.RunGuard() }
