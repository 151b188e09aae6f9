//! Task contracts and delegations: the contract/status/result/questions files of a delegated
//! task ([`contract`]), their templates ([`template`]), task ids ([`task_id`]), and the
//! checks on a delegation's chain and on what a subagent hands back ([`delegation`]).

pub mod contract;
pub mod delegation;
pub mod task_id;
pub mod template;
