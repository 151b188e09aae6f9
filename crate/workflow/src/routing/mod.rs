//! Routing: which workflow a message belongs to ([`router`]), and which language a task and
//! its delegations use ([`language`]). Lives in the lazily loaded workflow package.

pub mod language;
pub mod router;
