package proctree

// KeeperArg is the subcommand word that makes agentty's executable a
// session's keeper (RunKeeper); guardstart runs it.
const KeeperArg = "__keeper"
