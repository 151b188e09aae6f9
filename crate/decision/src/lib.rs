//! NSO's decision core: whether an agent may make a tool call, and if not, why and what it
//! may do instead. [`authority`] runs the whole decision of a call (`Engine::decide_call`),
//! asking its host for file facts through one small trait; [`shell`] reads bash commands
//! into what they do; [`hosts`] maps other hosts' tools (Claude Code) onto NSO's classes;
//! [`toolbox`] is the one table of NSO's own tools. Pure: text, time and facts in, decisions
//! out.

pub mod authority;
pub mod hosts;
pub mod shell;
pub mod toolbox;
