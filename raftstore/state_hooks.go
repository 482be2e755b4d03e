package raftstore

// AgentHooksKey is the table index that moves whenever the configuration's
// hook_version does (a hook with an agent event changed). Agents' work
// long-polls watch it next to their own host's work index, so a hook
// change reaches idle agents without waking them for anything else.
const AgentHooksKey = "agent-hooks"
